@testable import HearthHub
import Testing

/// When the hub gives freed memory back: after a burst is over or connections closed, never at every look
/// under a steady load (nor for what a trim gave back and the load takes again), and once for memory that
/// stays in use.
@Suite("MemoryTrimmer.Policy: trims after bursts and closes, not in steady state")
struct MemoryTrimmerTests {
    /// The policy's answer at each look, given (resident MB, connections closed so far) per look.
    static func trims(
        startingAt resident: Int, closed: Int, looks: [(residentMB: Int, closed: Int)], thresholdMB: Int = 32
    ) -> [Bool] {
        let mb = 1024 * 1024
        var policy = MemoryTrimmer.Policy(
            growthThreshold: thresholdMB * mb, residentBytes: resident * mb, connectionsClosed: closed)
        return looks.map { policy.look(residentBytes: $0.residentMB * mb, connectionsClosed: $0.closed) }
    }

    @Test("steady state: no trim, however the resident size wavers")
    func steady() {
        let looks = [200, 205, 198, 210, 201, 199, 206].map { (residentMB: $0, closed: 3) }
        #expect(Self.trims(startingAt: 200, closed: 3, looks: looks) == Array(repeating: false, count: 7))
    }

    @Test("a burst trims once it is over, not while it grows; the next trims when it passes the last mark")
    func bursts() {
        // 120, 180: growing; 180: over, 80 MB above the start (the mark is now 180); 150: the trim gave 30 MB
        // back; 170, 190: under 32 MB above the mark; 230: growing; 230: over, 50 MB above it.
        let looks = [120, 180, 180, 150, 150, 170, 190, 190, 230, 230].map { (residentMB: $0, closed: 0) }
        #expect(
            Self.trims(startingAt: 100, closed: 0, looks: looks)
                == [false, false, true, false, false, false, false, false, false, true])
    }

    @Test("what a trim gave back and a steady load faults in again is not a burst")
    func refault() {
        let looks = [(residentMB: 200, closed: 1)] + [140, 170, 200, 200, 205, 200].map { (residentMB: $0, closed: 1) }
        #expect(Self.trims(startingAt: 200, closed: 0, looks: looks) == [true] + Array(repeating: false, count: 6))
    }

    @Test("without the resident size only closes trim")
    func unreadable() {
        var policy = MemoryTrimmer.Policy(growthThreshold: 1, residentBytes: nil, connectionsClosed: 0)
        let answers = [0, 1, 1].map { policy.look(residentBytes: nil, connectionsClosed: $0) }
        #expect(answers == [false, true, false])
        // Readable later: that reading is where the process stands, not 200 MB grown from nothing.
        let mb = 1024 * 1024
        let later = [200, 200, 201].map { policy.look(residentBytes: $0 * mb, connectionsClosed: 1) }
        #expect(later == [false, false, false])
    }

    @Test("memory that stays in use after a trim is trimmed for once")
    func growth() {
        // A home of 100,000 devices loaded: 300 MB more, nothing to give back, then steady.
        let looks = [250, 400, 400, 400, 401, 399, 400].map { (residentMB: $0, closed: 0) }
        #expect(Self.trims(startingAt: 100, closed: 0, looks: looks) == [false, false, true, false, false, false, false])
    }

    @Test("connections closed since the last look trim, whatever the resident size")
    func closes() {
        let looks = [(residentMB: 10, closed: 6), (residentMB: 10, closed: 6), (residentMB: 9, closed: 8)]
        #expect(Self.trims(startingAt: 10, closed: 5, looks: looks) == [true, false, true])
    }

    @Test("the resident size is read from the process itself")
    func resident() {
        let before = MemoryTrimmer.residentBytes ?? 0
        #expect(before > 1024 * 1024)
        // 128 MB written to: resident grows by about as much (other tests freeing meanwhile cannot take half).
        let pages = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 << 20, alignment: 4096)
        defer { pages.deallocate() }
        for offset in stride(from: 0, to: pages.count, by: 4096) { pages[offset] = 1 }
        #expect((MemoryTrimmer.residentBytes ?? 0) - before > 64 << 20)
    }
}

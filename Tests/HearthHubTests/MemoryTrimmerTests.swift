@testable import HearthHub
import Testing

/// When the hub gives freed memory back: after a burst is over or connections closed, never at every look
/// under a steady load, and once for memory that stays in use.
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

    @Test("a burst trims once it is over, not while it grows; the next burst trims again")
    func bursts() {
        // 120, 180: growing; 180: over, 80 MB above the start; 150: the trim gave 30 MB back; 170: 20 MB above
        // that; 190: growing; 190: over, 40 MB above 150.
        let looks = [120, 180, 180, 150, 150, 170, 190, 190].map { (residentMB: $0, closed: 0) }
        #expect(Self.trims(startingAt: 100, closed: 0, looks: looks) == [false, false, true, false, false, false, false, true])
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
        let before = MemoryTrimmer.residentBytes
        #expect(before > 1024 * 1024)
        // 128 MB written to: resident grows by about as much (other tests freeing meanwhile cannot take half).
        let pages = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 << 20, alignment: 4096)
        defer { pages.deallocate() }
        for offset in stride(from: 0, to: pages.count, by: 4096) { pages[offset] = 1 }
        #expect(MemoryTrimmer.residentBytes - before > 64 << 20)
    }
}

@testable import HearthHub
import Testing

/// When the hub gives freed memory back: after a burst or closed connections, never at every look under a
/// steady load that keeps its arenas' free bytes high.
@Suite("MemoryTrimmer.Policy: trims after bursts and closes, not in steady state")
struct MemoryTrimmerTests {
    /// The policy's answer at each look, given (free MB, connections closed so far) per look.
    static func trims(
        startingAt free: Int, closed: Int, looks: [(freeMB: Int, closed: Int)], thresholdMB: Int = 32
    ) -> [Bool] {
        let mb = 1024 * 1024
        var policy = MemoryTrimmer.Policy(freeThreshold: thresholdMB * mb, freeBytes: free * mb, connectionsClosed: closed)
        return looks.map { policy.look(freeBytes: $0.freeMB * mb, connectionsClosed: $0.closed) }
    }

    @Test("steady state with much free: no trim, however high the free bytes stay")
    func steady() {
        let looks = [60, 58, 70, 61, 64, 59, 62].map { (freeMB: $0, closed: 3) }
        #expect(Self.trims(startingAt: 60, closed: 3, looks: looks) == Array(repeating: false, count: 7))
    }

    @Test("a burst freed above the least since the last trim trims once; the next burst trims again")
    func bursts() {
        // 20: memory taken into use; 60: 40 MB freed since that low; 60 again: nothing new; 90: 30 MB more than
        // at the trim, under the threshold; 95: 35 MB more.
        let looks = [20, 60, 60, 90, 95].map { (freeMB: $0, closed: 0) }
        #expect(Self.trims(startingAt: 40, closed: 0, looks: looks) == [false, true, false, false, true])
    }

    @Test("connections closed since the last look trim, whatever the free bytes")
    func closes() {
        let looks = [(freeMB: 10, closed: 6), (freeMB: 10, closed: 6), (freeMB: 9, closed: 8)]
        #expect(Self.trims(startingAt: 10, closed: 5, looks: looks) == [true, false, true])
    }
}

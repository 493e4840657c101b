import Synchronization

/// Caps the handlers running at once across a server. A stream over the cap
/// is refused (RST_STREAM REFUSED_STREAM, which clients see as UNAVAILABLE
/// and may retry) instead of queueing work without bound.
final class CallAdmission: Sendable {
    private let running = Atomic<Int>(0)
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Takes a slot if one is free.
    func tryAdmit() -> Bool {
        while true {
            let current = running.load(ordering: .relaxed)
            guard current < limit else { return false }
            if running.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing).exchanged {
                return true
            }
        }
    }

    func release() {
        running.subtract(1, ordering: .releasing)
    }

    /// Handlers running now.
    var current: Int { running.load(ordering: .relaxed) }
}

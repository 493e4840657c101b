/// A fixed-rate send schedule that does not wait for answers: send `k` is due at `start + k / rate`
/// whatever happened to the sends before it, so a slow system shows as delay measured from the due time
/// (no coordinated omission) rather than as a lower rate.
public struct OpenLoopSchedule: Sendable, Hashable {
    /// `CLOCK_MONOTONIC` nanoseconds of send 0.
    public var start: UInt64
    /// Sends per second.
    public var rate: Double
    /// How many sends in all.
    public var total: Int

    /// A schedule of `rate × seconds` sends (rounded) from `start`.
    public init(start: UInt64, rate: Double, seconds: Double) {
        precondition(rate > 0 && seconds >= 0, "an open-loop schedule needs a positive rate")
        self.start = start
        self.rate = rate
        self.total = Int((rate * seconds).rounded())
    }

    /// When send `k` is due.
    public func due(_ k: Int) -> UInt64 { start + UInt64((Double(k) * 1e9 / rate).rounded()) }

    /// How many sends are due by `now` (all of them from the end of the schedule on).
    public func dueCount(at now: UInt64) -> Int {
        guard now >= start else { return 0 }
        return min(total, Int((Double(now - start) * rate / 1e9).rounded(.down)) + 1)
    }

    /// The sequence number device `index` of `devices` has after `reports` round-robin reports (the
    /// driver's report `j` goes to device `j % devices`).
    public static func expectedSeq(index: Int, devices: Int, reports: Int) -> UInt64 {
        UInt64(reports / devices + (index < reports % devices ? 1 : 0))
    }
}

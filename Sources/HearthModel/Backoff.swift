/// Jittered exponential backoff for retries (a driver reconnecting, the hub restarting a crashed plugin):
/// each failed attempt doubles the wait up to a cap, and a
/// random part spreads drivers that lost the hub at the same moment, so they do not return all at once.
///
/// ```swift
/// let wait = Backoff().delay(attempt: 3, random: .random(in: 0...1))
/// ```
public struct Backoff: Sendable, Hashable {
    /// The wait after the first failure. Default 200 ms.
    public var initial: Duration
    /// The longest wait. Default 30 s.
    public var maximum: Duration
    /// How much of each wait is random, 0...1: the wait is drawn from `[(1 − jitter)·d, d]`. Default 0.5.
    public var jitter: Double

    public init(initial: Duration = .milliseconds(200), maximum: Duration = .seconds(30), jitter: Double = 0.5) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait before attempt `attempt` (0 for the first retry), given a uniform random number in 0...1.
    public func delay(attempt: Int, random: Double) -> Duration {
        var ceiling = initial
        for _ in 0..<min(max(attempt, 0), 62) {
            ceiling = ceiling * 2
            if ceiling >= maximum { break }
        }
        ceiling = min(ceiling, maximum)
        return ceiling * (1 - jitter * min(max(random, 0), 1))
    }
}

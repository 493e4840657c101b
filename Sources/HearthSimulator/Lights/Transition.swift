/// A number moving in a straight line from one value to another over a time: a level or colour change
/// taking its transition time, or a continuous move at a rate until a bound.
///
/// Time is an argument, so a transition is a plain value that tests can step through.
public struct Transition: Sendable, Hashable {
    /// The value at `start`.
    public var from: Double
    /// The value at `start + duration` and after.
    public var to: Double
    /// When the transition began.
    public var start: ContinuousClock.Instant
    /// How long it takes; zero jumps at once.
    public var duration: Duration

    /// A transition from `from` to `to` over `duration`, beginning at `start`.
    public init(from: Double, to: Double, start: ContinuousClock.Instant, duration: Duration) {
        self.from = from
        self.to = to
        self.start = start
        self.duration = max(duration, .zero)
    }

    /// A move from `from` towards `to` at `rate` units per second (a Matter move command).
    public init(from: Double, to: Double, start: ContinuousClock.Instant, rate: Double) {
        let seconds = rate > 0 ? abs(to - from) / rate : 0
        self.init(from: from, to: to, start: start, duration: .milliseconds(Int((seconds * 1000).rounded())))
    }

    /// The value at `now`.
    public func value(at now: ContinuousClock.Instant) -> Double {
        guard duration > .zero else { return to }
        let fraction = min(1, max(0, (now - start) / duration))
        return from + (to - from) * fraction
    }

    /// Whether the value has reached `to` at `now`.
    public func isFinished(at now: ContinuousClock.Instant) -> Bool { now >= start + duration }

    /// The time left at `now`.
    public func remaining(at now: ContinuousClock.Instant) -> Duration { max(.zero, start + duration - now) }
}

extension Duration {
    /// Tenths of a second, Matter's unit of transition times.
    public static func tenths(_ count: some BinaryInteger) -> Duration { .milliseconds(Int(count) * 100) }

    /// The duration in tenths of a second, rounded up and capped at 65534 (as Matter's remaining times are).
    public var tenthsRoundedUp: UInt16 {
        guard self > .zero else { return 0 }
        return UInt16(min(65534, (self / .milliseconds(100)).rounded(.up)))
    }
}

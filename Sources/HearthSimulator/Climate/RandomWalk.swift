/// A sensor value that wanders: each step adds noise and a pull back towards a mean, and stays within
/// bounds, so a simulated temperature or humidity looks like a room's and never leaves believable values.
public struct RandomWalk: Sendable, Hashable {
    /// Where the value tends to.
    public var mean: Double
    /// The largest noise of one step, either way.
    public var step: Double
    /// The share of the distance to the mean made up in one step (0: none, 1: all).
    public var pull: Double
    /// The values it may take.
    public var bounds: ClosedRange<Double>

    /// A walk around `mean`.
    public init(mean: Double, step: Double, pull: Double = 0.1, bounds: ClosedRange<Double>) {
        self.mean = mean
        self.step = step
        self.pull = pull
        self.bounds = bounds
    }

    /// The value after one step from `value`.
    public func next(after value: Double, using generator: inout some RandomNumberGenerator) -> Double {
        let noise = step > 0 ? Double.random(in: -step...step, using: &generator) : 0
        let moved = value + (mean - value) * pull + noise
        return min(max(moved, bounds.lowerBound), bounds.upperBound)
    }
}

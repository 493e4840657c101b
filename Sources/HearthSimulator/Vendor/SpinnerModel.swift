/// A simulated spinner: it speeds up or slows down towards its target at a fixed acceleration, wobbles a
/// little once there, and spins down while switched off.
public struct SpinnerModel: Sendable, Hashable {
    /// The speed it aims for while on, in rpm.
    public private(set) var target: Double
    /// The speed now, in rpm.
    public private(set) var current: Double
    /// How fast the speed changes, in rpm per second. Default 500.
    public var acceleration: Double = 500
    /// The share by which a steady speed wobbles either way. Default 1 %.
    public var wobble: Double = 0.01
    /// The highest speed. Default 3000.
    public var maximum: Double = 3000

    /// A spinner turning at `rpm`, aiming to stay there.
    public init(rpm: UInt16) {
        target = Double(rpm)
        current = Double(rpm)
    }

    /// Aims for `rpm` (spinUp): the speed gets there over time.
    public mutating func spin(to rpm: UInt16) { target = min(Double(rpm), maximum) }

    /// Sets the speed at once (a write of `rpm`): it is at that speed now and stays there.
    public mutating func set(rpm: UInt16) {
        target = min(Double(rpm), maximum)
        current = target
    }

    /// The reported speed after `elapsed`: towards the target while on, towards 0 while off.
    public mutating func step(elapsed: Duration, isOn: Bool, using generator: inout some RandomNumberGenerator) -> UInt16 {
        let goal = isOn ? target : 0
        let change = acceleration * (elapsed / .seconds(1))
        current = current < goal ? min(goal, current + change) : max(goal, current - change)
        var shown = current
        if current == goal, goal > 0, wobble > 0 {
            shown *= 1 + Double.random(in: -wobble...wobble, using: &generator)
        }
        return UInt16(min(max(shown, 0), maximum).rounded())
    }
}

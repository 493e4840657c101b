public import HearthTypes

extension LightModel {
    /// Moves the colour temperature to `mireds` (clamped to what the light can make) over `duration`.
    public mutating func moveColorTemperature(to mireds: UInt16, over duration: Duration, at now: ContinuousClock.Instant) {
        advance(to: now)
        colorMode = .colorTemperatureMireds
        stop([.hue, .saturation, .x, .y], at: now)
        move(.mireds, to: Double(clampMireds(mireds, within: features.mireds)), over: duration, at: now)
    }

    /// Moves the colour temperature continuously at `rate` mireds per second towards a bound of `bounds`
    /// (the light's own range where the command gives 0).
    public mutating func moveColorTemperature(
        up: Bool, rate: Double, bounds: ClosedRange<UInt16>, at now: ContinuousClock.Instant
    ) {
        advance(to: now)
        colorMode = .colorTemperatureMireds
        let bound = Double(up ? bounds.upperBound : bounds.lowerBound)
        let from = value(.mireds, at: now)
        move(.mireds, to: bound, over: Transition(from: from, to: bound, start: now, rate: rate).duration, at: now)
    }

    /// Steps the colour temperature by `size` mireds within `bounds` over `duration`.
    public mutating func stepColorTemperature(
        up: Bool, size: UInt16, bounds: ClosedRange<UInt16>, over duration: Duration, at now: ContinuousClock.Instant
    ) {
        advance(to: now)
        colorMode = .colorTemperatureMireds
        let from = value(.mireds, at: now).rounded()
        let target = min(max(up ? from + Double(size) : from - Double(size), Double(bounds.lowerBound)), Double(bounds.upperBound))
        move(.mireds, to: target, over: duration, at: now)
    }

    /// The command's colour-temperature bounds within the light's: 0 means the light's own.
    public func miredsBounds(minimum: UInt16, maximum: UInt16) -> ClosedRange<UInt16> {
        let low = minimum == 0 ? features.mireds.lowerBound : clampMireds(minimum, within: features.mireds)
        let high = maximum == 0 ? features.mireds.upperBound : clampMireds(maximum, within: features.mireds)
        return min(low, high)...max(low, high)
    }

    /// Moves the hue round the colour circle the way `direction` says, over `duration`.
    public mutating func moveHue(
        to hue: UInt8, direction: Matter.ColorControlTrait.DirectionEnum, over duration: Duration,
        at now: ContinuousClock.Instant
    ) {
        advance(to: now)
        enterHueSaturationMode(at: now)
        let from = value(.hue, at: now)
        var delta = Double(min(hue, 253)) - from
        switch direction {
        case .shortest: if delta > 127 { delta -= 254 } else if delta < -127 { delta += 254 }
        case .longest: if delta > 0, delta <= 127 { delta -= 254 } else if delta < 0, delta >= -127 { delta += 254 }
        case .up: if delta < 0 { delta += 254 }
        case .down: if delta > 0 { delta -= 254 }
        }
        transitions[.hue] = nil
        values[.hue] = from
        move(.hue, to: from + delta, over: duration, at: now)
    }

    /// Moves the saturation over `duration`.
    public mutating func moveSaturation(to saturation: UInt8, over duration: Duration, at now: ContinuousClock.Instant) {
        advance(to: now)
        enterHueSaturationMode(at: now)
        move(.saturation, to: Double(min(saturation, 254)), over: duration, at: now)
    }

    /// Moves to a CIE xy colour over `duration`.
    public mutating func moveColor(x: UInt16, y: UInt16, over duration: Duration, at now: ContinuousClock.Instant) {
        advance(to: now)
        colorMode = .currentXAndCurrentY
        stop([.mireds, .hue, .saturation], at: now)
        move(.x, to: Double(min(x, 65279)), over: duration, at: now)
        move(.y, to: Double(min(y, 65279)), over: duration, at: now)
    }

    /// Stops every colour transition where it is.
    public mutating func stopColor(at now: ContinuousClock.Instant) {
        advance(to: now)
        stop(Channel.allCases.filter(\.isColor), at: now)
    }

    private mutating func enterHueSaturationMode(at now: ContinuousClock.Instant) {
        colorMode = .currentHueAndCurrentSaturation
        stop([.mireds, .x, .y], at: now)
    }

    private func clampMireds(_ mireds: UInt16, within range: ClosedRange<UInt16>) -> UInt16 {
        min(max(mireds, range.lowerBound), range.upperBound)
    }
}

/// The attribute values of a light at one instant, as its driver reports them.
public struct LightState: Sendable, Hashable {
    /// OnOff onOff.
    public var onOff: Bool
    /// OnOff onTime: tenths of a second a timed on has left.
    public var onTime: UInt16
    /// OnOff offWaitTime.
    public var offWaitTime: UInt16
    /// LevelControl currentLevel.
    public var level: UInt8
    /// LevelControl remainingTime, in tenths.
    public var levelRemaining: UInt16
    /// ColorControl colorTemperatureMireds.
    public var mireds: UInt16
    /// ColorControl currentHue.
    public var hue: UInt8
    /// ColorControl currentSaturation.
    public var saturation: UInt8
    /// ColorControl currentX and currentY.
    public var x: UInt16
    /// The y coordinate.
    public var y: UInt16
    /// ColorControl colorMode.
    public var colorMode: Matter.ColorControlTrait.ColorModeEnum
    /// ColorControl remainingTime, in tenths: the longest colour transition's.
    public var colorRemaining: UInt16
}

extension LightModel {
    /// The attribute values at `now`, transitions included (call ``advance(to:)`` first to settle them).
    public func state(at now: ContinuousClock.Instant) -> LightState {
        func rounded(_ channel: Channel) -> Double { value(channel, at: now).rounded() }
        let colorRemaining = transitions.filter(\.key.isColor).values.map { $0.remaining(at: now) }.max() ?? .zero
        return LightState(
            onOff: onOff, onTime: onTimeLeft(at: now), offWaitTime: offWaitTime,
            level: UInt8(min(254, max(0, rounded(.level)))),
            levelRemaining: transitions[.level]?.remaining(at: now).tenthsRoundedUp ?? 0,
            mireds: UInt16(min(65279, max(1, rounded(.mireds)))),
            hue: UInt8(min(254, max(0, rounded(.hue)))) % 254,
            saturation: UInt8(min(254, max(0, rounded(.saturation)))),
            x: UInt16(min(65279, max(0, rounded(.x)))), y: UInt16(min(65279, max(0, rounded(.y)))),
            colorMode: colorMode, colorRemaining: colorRemaining.tenthsRoundedUp)
    }
}

public import HearthTypes

/// A simulated light (or plug, or speaker: anything with OnOff and perhaps LevelControl and ColorControl):
/// its on/off state, level and colour, and the transitions running towards new values.
///
/// Commands change the model at an instant (`at now`); ``advance(to:)`` settles what has finished and
/// ``state(at:)`` gives the attribute values to report. A new command on a channel replaces the transition
/// running there, starting from wherever that one had got to.
///
/// ```swift
/// var lamp = LightModel(features: .dimmable, onOff: true, level: 10)
/// lamp.moveLevel(to: 200, over: .tenths(20), withOnOff: false, at: now)   // 2 s
/// lamp.state(at: now + .seconds(1)).level                                // 105
/// ```
public struct LightModel: Sendable, Hashable {
    /// What the light can do.
    public struct Features: Sendable, Hashable {
        /// Dimming (LevelControl).
        public var level: Bool
        /// White colour temperature (ColorControl).
        public var colorTemperature: Bool
        /// Hue and saturation (ColorControl).
        public var hueSaturation: Bool
        /// CIE xy colour (ColorControl).
        public var xy: Bool
        /// The levels it supports (LevelControl minLevel...maxLevel).
        public var levels: ClosedRange<UInt8> = 1...254
        /// The colour temperatures it can make, in mireds (physical min...max).
        public var mireds: ClosedRange<UInt16> = 153...454

        /// Features as listed.
        public init(level: Bool, colorTemperature: Bool = false, hueSaturation: Bool = false, xy: Bool = false) {
            self.level = level
            self.colorTemperature = colorTemperature
            self.hueSaturation = hueSaturation
            self.xy = xy
        }

        /// On and off only (an on/off light, a plug).
        public static let onOff = Features(level: false)
        /// On/off and dimming.
        public static let dimmable = Features(level: true)
        /// Dimming and white colour temperature.
        public static let colorTemperature = Features(level: true, colorTemperature: true)
        /// Dimming, colour temperature, hue/saturation and xy.
        public static let extendedColor = Features(level: true, colorTemperature: true, hueSaturation: true, xy: true)

        /// Whether it has ColorControl at all.
        public var hasColor: Bool { colorTemperature || hueSaturation || xy }
    }

    /// A value that moves with a transition.
    public enum Channel: Sendable, Hashable, CaseIterable {
        case level, mireds, hue, saturation, x, y

        var isColor: Bool { self != .level }
    }

    /// What the light can do.
    public let features: Features
    /// Whether it is on.
    public private(set) var onOff: Bool
    /// Which attributes set the colour now.
    public internal(set) var colorMode: Matter.ColorControlTrait.ColorModeEnum
    /// Each channel's value when no transition runs on it (hue unwrapped while one does).
    var values: [Channel: Double]
    /// The transitions running, by channel.
    var transitions: [Channel: Transition] = [:]
    /// A with-on/off level command that ends at the minimum turns the light off when the level settles.
    var offWhenLevelSettles = false
    /// When a timed on (onWithTimedOff) turns the light off by itself.
    var offAt: ContinuousClock.Instant?
    /// The off-wait time of the last timed on, in tenths.
    public private(set) var offWaitTime: UInt16 = 0

    /// A light in a given state.
    public init(
        features: Features, onOff: Bool, level: UInt8 = 254, mireds: UInt16 = 370, hue: UInt8 = 0,
        saturation: UInt8 = 0, x: UInt16 = 24939, y: UInt16 = 24701,
        colorMode: Matter.ColorControlTrait.ColorModeEnum? = nil
    ) {
        self.features = features
        self.onOff = onOff
        self.colorMode = colorMode ?? (features.colorTemperature ? .colorTemperatureMireds : .currentXAndCurrentY)
        values = [
            .level: Double(min(max(level, features.levels.lowerBound), features.levels.upperBound)),
            .mireds: Double(min(max(mireds, features.mireds.lowerBound), features.mireds.upperBound)),
            .hue: Double(min(hue, 253)), .saturation: Double(min(saturation, 254)), .x: Double(x), .y: Double(y),
        ]
    }

    /// Whether something will change without a command: a transition runs or a timed on counts down.
    public var isActive: Bool { !transitions.isEmpty || offAt != nil }

    /// A channel's value at `now` (hue wrapped into 0..<254).
    public func value(_ channel: Channel, at now: ContinuousClock.Instant) -> Double {
        let raw = transitions[channel]?.value(at: now) ?? values[channel] ?? 0
        return channel == .hue ? Self.wrapHue(raw) : raw
    }

    /// Settles the transitions finished by `now` and the timed on that has run out.
    public mutating func advance(to now: ContinuousClock.Instant) {
        for (channel, transition) in transitions where transition.isFinished(at: now) {
            values[channel] = channel == .hue ? Self.wrapHue(transition.to) : transition.to
            transitions[channel] = nil
            if channel == .level, offWhenLevelSettles {
                offWhenLevelSettles = false
                onOff = false
            }
        }
        if let offAt, now >= offAt {
            self.offAt = nil
            onOff = false
        }
    }

    /// Starts a transition on `channel` from its value at `now` (replacing one running there).
    mutating func move(_ channel: Channel, to target: Double, over duration: Duration, at now: ContinuousClock.Instant) {
        let from = transitions[channel]?.value(at: now) ?? values[channel] ?? 0
        transitions[channel] = nil
        values[channel] = from
        guard duration > .zero, from != target else {
            values[channel] = channel == .hue ? Self.wrapHue(target) : target
            return
        }
        transitions[channel] = Transition(from: from, to: target, start: now, duration: duration)
    }

    /// Freezes `channels` where they are at `now`.
    mutating func stop(_ channels: [Channel], at now: ContinuousClock.Instant) {
        for channel in channels {
            guard let transition = transitions.removeValue(forKey: channel) else { continue }
            let value = transition.value(at: now).rounded()
            values[channel] = channel == .hue ? Self.wrapHue(value) : value
        }
    }

    /// Hue 0...254 is a circle: 254 is 360°, the same as 0.
    static func wrapHue(_ hue: Double) -> Double {
        let wrapped = hue.truncatingRemainder(dividingBy: 254)
        return wrapped < 0 ? wrapped + 254 : wrapped
    }
}

// MARK: - On and off

extension LightModel {
    /// Turns the light on or off. Off also stops level transitions and ends a timed on.
    public mutating func setOn(_ on: Bool, at now: ContinuousClock.Instant) {
        advance(to: now)
        onOff = on
        if !on {
            stop([.level], at: now)
            offWhenLevelSettles = false
            offAt = nil
        }
    }

    /// Turns the light on and, when `onLevel` is given, moves the level there over `transition`.
    public mutating func turnOn(onLevel: UInt8?, transition: Duration, at now: ContinuousClock.Instant) {
        setOn(true, at: now)
        if let onLevel, features.level {
            offWhenLevelSettles = false
            move(.level, to: Double(clampLevel(onLevel)), over: transition, at: now)
        }
    }

    /// Turns the light on for `onTime` tenths of a second (at least what is left of a running timed on),
    /// then off. With `acceptOnlyWhenOn` an off light ignores it.
    public mutating func timedOn(onTime: UInt16, offWaitTime: UInt16, acceptOnlyWhenOn: Bool, at now: ContinuousClock.Instant) {
        advance(to: now)
        if acceptOnlyWhenOn, !onOff { return }
        let end = now + .tenths(onTime)
        offAt = max(offAt ?? now, end)
        self.offWaitTime = offWaitTime
        onOff = true
    }

    /// Tenths of a second a timed on has left at `now` (0 when none runs).
    public func onTimeLeft(at now: ContinuousClock.Instant) -> UInt16 {
        offAt.map { ($0 - now).tenthsRoundedUp } ?? 0
    }
}

// MARK: - Level

extension LightModel {
    func clampLevel(_ level: UInt8) -> UInt8 {
        min(max(level, features.levels.lowerBound), features.levels.upperBound)
    }

    /// Moves the level to `target` (clamped to the light's levels) over `duration`. `withOnOff` turns the
    /// light on as the level leaves the minimum and off when it settles there.
    public mutating func moveLevel(to target: UInt8, over duration: Duration, withOnOff: Bool, at now: ContinuousClock.Instant) {
        advance(to: now)
        let target = clampLevel(target)
        applyOnOff(withOnOff, up: target > features.levels.lowerBound)
        move(.level, to: Double(target), over: duration, at: now)
    }

    /// Moves the level continuously up or down at `rate` units per second until the bound.
    public mutating func moveLevel(up: Bool, rate: Double, withOnOff: Bool, at now: ContinuousClock.Instant) {
        advance(to: now)
        let bound = Double(up ? features.levels.upperBound : features.levels.lowerBound)
        applyOnOff(withOnOff, up: bound > Double(features.levels.lowerBound))
        let from = value(.level, at: now)
        move(.level, to: bound, over: Transition(from: from, to: bound, start: now, rate: rate).duration, at: now)
    }

    /// Steps the level by `size` (within the light's levels) over `duration`.
    public mutating func stepLevel(up: Bool, size: UInt8, over duration: Duration, withOnOff: Bool, at now: ContinuousClock.Instant) {
        advance(to: now)
        let from = value(.level, at: now).rounded()
        let target = up ? from + Double(size) : from - Double(size)
        let clamped = min(max(target, Double(features.levels.lowerBound)), Double(features.levels.upperBound))
        applyOnOff(withOnOff, up: clamped > Double(features.levels.lowerBound))
        move(.level, to: clamped, over: duration, at: now)
    }

    /// Stops a level move or step where it is.
    public mutating func stopLevel(at now: ContinuousClock.Instant) {
        advance(to: now)
        stop([.level], at: now)
        offWhenLevelSettles = false
    }

    /// The with-on/off rule: on at once when the target is above the minimum; off once settled when it is
    /// the minimum.
    private mutating func applyOnOff(_ withOnOff: Bool, up aboveMinimum: Bool) {
        offWhenLevelSettles = withOnOff && !aboveMinimum
        if withOnOff, aboveMinimum { onOff = true }
    }
}

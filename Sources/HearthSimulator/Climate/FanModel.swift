public import HearthTypes

/// The rules of a simulated fan (Matter Fan Control with the offLowMedHighAuto sequence): how a fan mode
/// and a speed setting imply each other, and how the actual speed follows the setting.
public enum FanModel {
    /// A fan mode.
    public typealias Mode = Matter.FanControlTrait.FanModeEnum

    /// The speed in percent a fan picks by itself in auto mode.
    public static let autoPercent: UInt8 = 50

    /// The mode as the fan takes it: the deprecated `on` is `high`, `smart` is `auto`.
    public static func normalized(_ mode: Mode) -> Mode {
        switch mode {
        case .on: .high
        case .smart: .auto
        default: mode
        }
    }

    /// The speed setting a mode implies; nil (null) in auto mode.
    public static func percent(for mode: Mode) -> UInt8? {
        switch normalized(mode) {
        case .off: 0
        case .low: 33
        case .medium: 66
        case .high, .on: 100
        case .auto, .smart: nil
        }
    }

    /// The mode a speed setting implies.
    public static func mode(for percent: UInt8) -> Mode {
        switch percent {
        case 0: .off
        case 1...33: .low
        case 34...66: .medium
        default: .high
        }
    }

    /// The speed the fan aims for: the setting, or ``autoPercent`` in auto mode.
    public static func target(mode: Mode, setting: UInt8?) -> UInt8 {
        if normalized(mode) == .auto { return autoPercent }
        return setting ?? percent(for: mode) ?? 0
    }

    /// The actual speed one step later: towards `target` by at most `maxChange` points.
    public static func follow(current: UInt8, target: UInt8, maxChange: UInt8 = 10) -> UInt8 {
        current < target ? min(target, current &+ min(maxChange, target - current)) : max(target, current - min(maxChange, current - target))
    }

    /// The setting after a step command: 10 points up or down; `wrap` goes round past the ends, and
    /// `lowestOff` lets a step down reach 0 (off) instead of stopping at 10.
    public static func step(from setting: UInt8, up: Bool, wrap: Bool, lowestOff: Bool) -> UInt8 {
        let lowest: UInt8 = lowestOff ? 0 : 10
        if up {
            if setting >= 100 { return wrap ? lowest : 100 }
            return min(100, setting + 10)
        }
        if setting <= lowest { return wrap ? 100 : lowest }
        return max(lowest, setting - 10)
    }
}

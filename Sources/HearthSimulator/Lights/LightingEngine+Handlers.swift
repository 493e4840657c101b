public import HearthDriverKit
import HearthModel
import HearthTypes
import HearthWire

extension LightingEngine {
    /// Registers the OnOff, LevelControl and ColorControl handlers on `driver` (once per driver).
    public func install(on driver: Driver) {
        installOnOff(on: driver)
        installLevel(on: driver)
        installColor(on: driver)
    }

    /// Whether a command runs on a light that is off: the options bitmap's executeIfOff bit (bit 0), as
    /// the command's mask and override change the stored options.
    public static func executes(isOn: Bool, stored: UInt32, mask: UInt32, override: UInt32) -> Bool {
        isOn || ((stored & ~mask) | (override & mask)) & 1 != 0
    }

    private func installOnOff(on driver: Driver) {
        driver.onCommand(Matter.OnOffTrait.OnCommand.self) { [self] _, context in
            try run(context) { model, device, now in
                let level = try? device.attributes(Matter.LevelControlTrait.self, endpoint: context.endpoint)
                let transition = level?.onTransitionTime ?? level?.onOffTransitionTime ?? 0
                model.turnOn(onLevel: level?.onLevel, transition: .tenths(transition), at: now)
            }
        }
        driver.onCommand(Matter.OnOffTrait.OffCommand.self) { [self] _, context in
            try run(context) { model, _, now in model.setOn(false, at: now) }
        }
        driver.onCommand(Matter.OnOffTrait.ToggleCommand.self) { [self] _, context in
            try run(context) { model, _, now in model.setOn(!model.onOff, at: now) }
        }
        driver.onCommand(Matter.OnOffTrait.OffWithEffectCommand.self) { [self] _, context in
            try run(context) { model, _, now in model.setOn(false, at: now) }
        }
        driver.onCommand(Matter.OnOffTrait.OnWithRecallGlobalSceneCommand.self) { [self] _, context in
            try run(context) { model, _, now in model.setOn(true, at: now) }
        }
        driver.onCommand(Matter.OnOffTrait.OnWithTimedOffCommand.self) { [self] command, context in
            try run(context) { model, _, now in
                model.timedOn(
                    onTime: command.onTime, offWaitTime: command.offWaitTime,
                    acceptOnlyWhenOn: command.onOffControl.contains(.acceptOnlyWhenOn), at: now)
            }
        }
    }

    private func installLevel(on driver: Driver) {
        typealias Level = Matter.LevelControlTrait
        driver.onCommand(Level.MoveToLevelCommand.self) { [self] command, context in
            try level(context, mask: command.optionsMask, override: command.optionsOverride) { model, stored, now in
                model.moveLevel(
                    to: command.level, over: .tenths(command.transitionTime ?? stored.onOffTransitionTime ?? 0),
                    withOnOff: false, at: now)
            }
        }
        driver.onCommand(Level.MoveToLevelWithOnOffCommand.self) { [self] command, context in
            try level(context, withOnOff: true) { model, stored, now in
                model.moveLevel(
                    to: command.level, over: .tenths(command.transitionTime ?? stored.onOffTransitionTime ?? 0),
                    withOnOff: true, at: now)
            }
        }
        driver.onCommand(Level.MoveCommand.self) { [self] command, context in
            try level(context, mask: command.optionsMask, override: command.optionsOverride) { model, stored, now in
                model.moveLevel(
                    up: command.moveMode == .up, rate: try Self.rate(command.rate, stored), withOnOff: false, at: now)
            }
        }
        driver.onCommand(Level.MoveWithOnOffCommand.self) { [self] command, context in
            try level(context, withOnOff: true) { model, stored, now in
                model.moveLevel(
                    up: command.moveMode == .up, rate: try Self.rate(command.rate, stored), withOnOff: true, at: now)
            }
        }
        driver.onCommand(Level.StepCommand.self) { [self] command, context in
            try level(context, mask: command.optionsMask, override: command.optionsOverride) { model, stored, now in
                model.stepLevel(
                    up: command.stepMode == .up, size: command.stepSize,
                    over: .tenths(command.transitionTime ?? stored.onOffTransitionTime ?? 0), withOnOff: false, at: now)
            }
        }
        driver.onCommand(Level.StepWithOnOffCommand.self) { [self] command, context in
            try level(context, withOnOff: true) { model, stored, now in
                model.stepLevel(
                    up: command.stepMode == .up, size: command.stepSize,
                    over: .tenths(command.transitionTime ?? stored.onOffTransitionTime ?? 0), withOnOff: true, at: now)
            }
        }
        driver.onCommand(Level.StopCommand.self) { [self] command, context in
            try level(context, mask: command.optionsMask, override: command.optionsOverride) { model, _, now in
                model.stopLevel(at: now)
            }
        }
        driver.onCommand(Level.StopWithOnOffCommand.self) { [self] _, context in
            try level(context, withOnOff: true) { model, _, now in model.stopLevel(at: now) }
        }
    }

    /// Runs a level command with the stored LevelControl settings; a light that is off ignores it unless
    /// the command is a with-on/off one or executeIfOff is in effect.
    private func level(
        _ context: CommandContext, withOnOff: Bool = false, mask: Matter.LevelControlTrait.OptionsBitmap = [],
        override: Matter.LevelControlTrait.OptionsBitmap = [],
        _ body: (inout LightModel, Matter.LevelControlTrait.Attributes, ContinuousClock.Instant) throws -> Void
    ) throws {
        try run(context) { model, device, now in
            guard model.features.level else {
                throw RPCError(code: .unimplemented, message: "\(context.device.id) does not dim")
            }
            let stored = try device.attributes(Matter.LevelControlTrait.self, endpoint: context.endpoint)
            guard
                withOnOff
                    || Self.executes(
                        isOn: model.onOff, stored: stored.options?.rawValue ?? 0, mask: mask.rawValue,
                        override: override.rawValue)
            else { return }
            try body(&model, stored, now)
        }
    }

    /// A move's rate: the command's, else the stored default, else 50 levels a second. 0 is refused.
    private static func rate(_ rate: UInt8?, _ stored: Matter.LevelControlTrait.Attributes) throws -> Double {
        let rate = rate ?? stored.defaultMoveRate ?? 50
        guard rate > 0 else { throw RPCError(code: .invalidArgument, message: "a move needs a rate above 0") }
        return Double(rate)
    }
}

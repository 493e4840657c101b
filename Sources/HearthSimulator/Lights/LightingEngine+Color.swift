import HearthDriverKit
import HearthModel
import HearthTypes
import HearthWire

extension LightingEngine {
    func installColor(on driver: Driver) {
        typealias Color = Matter.ColorControlTrait
        driver.onCommand(Color.MoveToColorTemperatureCommand.self) { [self] command, context in
            try color(context, \.colorTemperature, command.optionsMask, command.optionsOverride) { model, now in
                model.moveColorTemperature(
                    to: command.colorTemperatureMireds, over: .tenths(command.transitionTime), at: now)
            }
        }
        driver.onCommand(Color.MoveColorTemperatureCommand.self) { [self] command, context in
            try color(context, \.colorTemperature, command.optionsMask, command.optionsOverride) { model, now in
                let bounds = model.miredsBounds(
                    minimum: command.colorTemperatureMinimumMireds, maximum: command.colorTemperatureMaximumMireds)
                switch command.moveMode {
                case .stop: model.stopColor(at: now)
                case .up, .down:
                    guard command.rate > 0 else {
                        throw RPCError(code: .invalidArgument, message: "a move needs a rate above 0")
                    }
                    model.moveColorTemperature(up: command.moveMode == .up, rate: Double(command.rate), bounds: bounds, at: now)
                }
            }
        }
        driver.onCommand(Color.StepColorTemperatureCommand.self) { [self] command, context in
            try color(context, \.colorTemperature, command.optionsMask, command.optionsOverride) { model, now in
                let bounds = model.miredsBounds(
                    minimum: command.colorTemperatureMinimumMireds, maximum: command.colorTemperatureMaximumMireds)
                model.stepColorTemperature(
                    up: command.stepMode == .up, size: command.stepSize, bounds: bounds,
                    over: .tenths(command.transitionTime), at: now)
            }
        }
        driver.onCommand(Color.MoveToHueCommand.self) { [self] command, context in
            try color(context, \.hueSaturation, command.optionsMask, command.optionsOverride) { model, now in
                model.moveHue(to: command.hue, direction: command.direction, over: .tenths(command.transitionTime), at: now)
            }
        }
        driver.onCommand(Color.MoveToSaturationCommand.self) { [self] command, context in
            try color(context, \.hueSaturation, command.optionsMask, command.optionsOverride) { model, now in
                model.moveSaturation(to: command.saturation, over: .tenths(command.transitionTime), at: now)
            }
        }
        driver.onCommand(Color.MoveToHueAndSaturationCommand.self) { [self] command, context in
            try color(context, \.hueSaturation, command.optionsMask, command.optionsOverride) { model, now in
                model.moveHue(to: command.hue, direction: .shortest, over: .tenths(command.transitionTime), at: now)
                model.moveSaturation(to: command.saturation, over: .tenths(command.transitionTime), at: now)
            }
        }
        driver.onCommand(Color.MoveToColorCommand.self) { [self] command, context in
            try color(context, \.xy, command.optionsMask, command.optionsOverride) { model, now in
                model.moveColor(x: command.colorX, y: command.colorY, over: .tenths(command.transitionTime), at: now)
            }
        }
        driver.onCommand(Color.StopMoveStepCommand.self) { [self] command, context in
            try color(context, \.hasColor, command.optionsMask, command.optionsOverride) { model, now in
                model.stopColor(at: now)
            }
        }
    }

    /// Runs a colour command on a light that has `feature` (else UNIMPLEMENTED); a light that is off
    /// ignores it unless executeIfOff is in effect.
    private func color(
        _ context: CommandContext, _ feature: KeyPath<LightModel.Features, Bool>,
        _ mask: Matter.ColorControlTrait.OptionsBitmap, _ override: Matter.ColorControlTrait.OptionsBitmap,
        _ body: (inout LightModel, ContinuousClock.Instant) throws -> Void
    ) throws {
        try run(context) { model, device, now in
            guard model.features[keyPath: feature] else {
                throw RPCError(code: .unimplemented, message: "\(context.device.id) cannot make that colour")
            }
            let stored = try device.attributes(Matter.ColorControlTrait.self, endpoint: context.endpoint)
            guard
                Self.executes(
                    isOn: model.onOff, stored: stored.options?.rawValue ?? 0, mask: mask.rawValue,
                    override: override.rawValue)
            else { return }
            try body(&model, now)
        }
    }
}

import HearthDriverKit
import HearthModel
import HearthTypes
import HearthWire

extension ClimateSimulation {
    /// Setpoint and mode writes are checked (limits, dead band, the modes the equipment has); a new
    /// setpoint pushes the other one to keep the dead band. SetpointRaiseLower moves setpoints likewise.
    func installThermostats(on driver: Driver) {
        typealias Thermostat = Matter.ThermostatTrait
        driver.onWrite(Thermostat.self) { written, context in
            if let mode = written.systemMode, !Self.systemModes.contains(mode) {
                throw RPCError(code: .invalidArgument, message: "the thermostat has no \(mode) mode")
            }
            let heat = written.occupiedHeatingSetpoint
            let cool = written.occupiedCoolingSetpoint
            guard heat != nil || cool != nil else { return }
            let now = try context.device.attributes(Thermostat.self, endpoint: context.endpoint)
            let settled = try ThermostatModel.settle(heat: heat, cool: cool, current: Self.setpoints(now), limits: Self.limits(now))
            try context.device.report(Thermostat.self, endpoint: context.endpoint) {
                $0.occupiedHeatingSetpoint = settled.heat
                $0.occupiedCoolingSetpoint = settled.cool
            }
        }
        driver.onCommand(Thermostat.SetpointRaiseLowerCommand.self) { command, context in
            let now = try context.device.attributes(Thermostat.self, endpoint: context.endpoint)
            let limits = Self.limits(now)
            let current = Self.setpoints(now)
            let delta = Int(command.amount) * 10
            func moved(_ value: Int16, _ range: ClosedRange<Int16>) -> Int16 {
                Int16(clamping: min(max(Int(value) + delta, Int(range.lowerBound)), Int(range.upperBound)))
            }
            let heat = command.mode != .cool ? moved(current.heat, limits.heat) : nil
            let cool = command.mode != .heat ? moved(current.cool, limits.cool) : nil
            let settled = try ThermostatModel.settle(heat: heat, cool: cool, current: current, limits: limits)
            try context.device.report(Thermostat.self, endpoint: context.endpoint) {
                $0.occupiedHeatingSetpoint = settled.heat
                $0.occupiedCoolingSetpoint = settled.cool
            }
        }
    }

    /// The system modes of a heating-and-cooling thermostat.
    static let systemModes: Set<Matter.ThermostatTrait.SystemModeEnum> = [.off, .auto, .cool, .heat, .fanOnly]

    static func setpoints(_ now: Matter.ThermostatTrait.Attributes) -> (heat: Int16, cool: Int16) {
        (now.occupiedHeatingSetpoint ?? 2000, now.occupiedCoolingSetpoint ?? 2600)
    }

    /// The thermostat's limits: the user limits where set, else the absolute ones; the dead band is in
    /// 0.1 °C on the wire.
    static func limits(_ now: Matter.ThermostatTrait.Attributes) -> ThermostatModel.Limits {
        let heatLow = now.minHeatSetpointLimit ?? now.absMinHeatSetpointLimit ?? 700
        let heatHigh = now.maxHeatSetpointLimit ?? now.absMaxHeatSetpointLimit ?? 3000
        let coolLow = now.minCoolSetpointLimit ?? now.absMinCoolSetpointLimit ?? 1600
        let coolHigh = now.maxCoolSetpointLimit ?? now.absMaxCoolSetpointLimit ?? 3200
        return ThermostatModel.Limits(
            heat: min(heatLow, heatHigh)...max(heatLow, heatHigh), cool: min(coolLow, coolHigh)...max(coolLow, coolHigh),
            deadBand: Int16(now.minSetpointDeadBand ?? 25) * 10)
    }

    /// Fan mode and speed writes imply each other (off is 0 %, low 33 %, medium 66 %, high 100 %, auto has
    /// no setting); the step command moves the setting by 10 points. The actual speed follows on the clock.
    func installFans(on driver: Driver) {
        typealias Fan = Matter.FanControlTrait
        driver.onWrite(Fan.self) { written, context in
            let settingWritten = written.values[Fan.AttributeIDs.percentSetting]
            if settingWritten == .null {
                throw RPCError(code: .invalidArgument, message: "percentSetting is null only in auto mode; write fanMode auto")
            }
            if let mode = written.fanMode, settingWritten == nil {
                try context.device.report(Fan.self, endpoint: context.endpoint) { $0.percentSetting = FanModel.percent(for: mode) }
            } else if let setting = written.percentSetting, written.fanMode == nil {
                try context.device.report(Fan.self, endpoint: context.endpoint) { $0.fanMode = FanModel.mode(for: setting) }
            }
        }
        driver.onCommand(Fan.StepCommand.self) { command, context in
            let now = try context.device.attributes(Fan.self, endpoint: context.endpoint)
            let mode = now.fanMode ?? .off
            let setting = FanModel.step(
                from: now.percentSetting ?? FanModel.target(mode: mode, setting: nil), up: command.direction == .increase,
                wrap: command.wrap ?? false, lowestOff: command.lowestOff ?? true)
            try context.device.report(Fan.self, endpoint: context.endpoint) {
                $0.percentSetting = setting
                $0.fanMode = FanModel.mode(for: setting)
            }
        }
    }
}

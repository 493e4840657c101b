public import HearthTypes
public import HearthWire

/// How a simulated room with a thermostat warms and cools: while the thermostat heats (or cools), the
/// local temperature moves towards the setpoint; otherwise it drifts back to the room's own temperature.
///
/// Stateless: each step reads what the thermostat reports (temperature, setpoints, mode, whether it is
/// running) and gives the next values, so the driver's reported attributes are the only state. Heating
/// starts 0.3 °C below the heating setpoint and stops 0.2 °C above it (cooling likewise), as real
/// thermostats avoid switching on every wobble.
public struct ThermostatModel: Sendable, Hashable {
    /// What the thermostat reports now. Temperatures in 0.01 °C.
    public struct Input: Sendable, Hashable {
        /// The temperature where the thermostat is.
        public var localTemperature: Int16
        /// occupiedHeatingSetpoint.
        public var heatingSetpoint: Int16
        /// occupiedCoolingSetpoint.
        public var coolingSetpoint: Int16
        /// What the thermostat is asked to do.
        public var systemMode: Matter.ThermostatTrait.SystemModeEnum
        /// Which stages run (thermostatRunningState).
        public var running: Matter.ThermostatTrait.RelayStateBitmap

        /// The thermostat's current values.
        public init(
            localTemperature: Int16, heatingSetpoint: Int16, coolingSetpoint: Int16,
            systemMode: Matter.ThermostatTrait.SystemModeEnum, running: Matter.ThermostatTrait.RelayStateBitmap
        ) {
            self.localTemperature = localTemperature
            self.heatingSetpoint = heatingSetpoint
            self.coolingSetpoint = coolingSetpoint
            self.systemMode = systemMode
            self.running = running
        }
    }

    /// What it reports after a step.
    public struct Output: Sendable, Hashable {
        /// The temperature where the thermostat is.
        public var localTemperature: Int16
        /// Which stages run (thermostatRunningState).
        public var running: Matter.ThermostatTrait.RelayStateBitmap
        /// Heating, cooling or neither (thermostatRunningMode).
        public var runningMode: Matter.ThermostatTrait.ThermostatRunningModeEnum
        /// Heating and cooling demand in percent.
        public var heatingDemand: UInt8
        /// Cooling demand in percent.
        public var coolingDemand: UInt8
    }

    /// The room's temperature without heating or cooling.
    public var room: RandomWalk
    /// How much heating (or cooling) moves the temperature in one step, in 0.01 °C. Default 0.15...0.35 °C.
    public var rate: ClosedRange<Double> = 15...35

    /// A room around `room`.
    public init(room: RandomWalk) { self.room = room }

    /// The values after one step.
    public func step(_ input: Input, using generator: inout some RandomNumberGenerator) -> Output {
        let local = Double(input.localTemperature)
        let heat = Double(input.heatingSetpoint)
        let cool = Double(input.coolingSetpoint)
        let mayHeat = [.heat, .auto, .emergencyHeat].contains(input.systemMode)
        let mayCool = [.cool, .auto, .precooling].contains(input.systemMode)
        let wasHeating = input.running.contains(.heat)
        let wasCooling = input.running.contains(.cool)
        let heating = mayHeat && (wasHeating ? local < heat + 20 : local < heat - 30)
        let cooling = !heating && mayCool && (wasCooling ? local > cool - 20 : local > cool + 30)

        var next: Double
        if heating {
            next = min(local + Double.random(in: rate, using: &generator), heat + 25)
        } else if cooling {
            next = max(local - Double.random(in: rate, using: &generator), cool - 25)
        } else {
            next = room.next(after: local, using: &generator)
        }
        next = min(max(next, -27315), 32767)
        var running: Matter.ThermostatTrait.RelayStateBitmap = []
        if heating { running.formUnion([.heat, .fan]) }
        if cooling { running.formUnion([.cool, .fan]) }
        if input.systemMode == .fanOnly { running.insert(.fan) }
        // Demand grows with the distance still to go (100 % at 2 °C); at least 1 % while running.
        func demand(_ gap: Double) -> UInt8 { UInt8(min(100, max(1, gap / 2))) }
        return Output(
            localTemperature: Int16(next.rounded()), running: running,
            runningMode: heating ? .heat : cooling ? .cool : .off,
            heatingDemand: heating ? demand(heat + 20 - next) : 0, coolingDemand: cooling ? demand(next - cool + 20) : 0)
    }
}

extension ThermostatModel {
    /// What setpoints may be: the heating and cooling limits and the least gap between them, in 0.01 °C.
    public struct Limits: Sendable, Hashable {
        /// The heating setpoints allowed.
        public var heat: ClosedRange<Int16>
        /// The cooling setpoints allowed.
        public var cool: ClosedRange<Int16>
        /// The least gap from heating to cooling setpoint.
        public var deadBand: Int16

        /// Limits as given.
        public init(heat: ClosedRange<Int16>, cool: ClosedRange<Int16>, deadBand: Int16) {
            self.heat = heat
            self.cool = cool
            self.deadBand = deadBand
        }
    }

    /// The setpoints after a change to one or both: a new setpoint must be within its limits; when only
    /// one changes, the other moves to keep the dead band (as Matter thermostats in auto do), if it can.
    /// - Throws: `RPCError` INVALID_ARGUMENT when a setpoint is out of its limits or the dead band cannot
    ///   be kept.
    public static func settle(
        heat: Int16?, cool: Int16?, current: (heat: Int16, cool: Int16), limits: Limits
    ) throws(RPCError) -> (heat: Int16, cool: Int16) {
        if let heat, !limits.heat.contains(heat) {
            throw RPCError(code: .invalidArgument, message: "heating setpoint \(heat) is outside \(limits.heat)")
        }
        if let cool, !limits.cool.contains(cool) {
            throw RPCError(code: .invalidArgument, message: "cooling setpoint \(cool) is outside \(limits.cool)")
        }
        var result = (heat: heat ?? current.heat, cool: cool ?? current.cool)
        let gap = Int(result.cool) - Int(result.heat)
        guard gap < Int(limits.deadBand) else { return result }
        switch (heat, cool) {
        case (.some, nil): result.cool = Int16(clamping: Int(result.heat) + Int(limits.deadBand))
        case (nil, .some): result.heat = Int16(clamping: Int(result.cool) - Int(limits.deadBand))
        default: break
        }
        guard limits.heat.contains(result.heat), limits.cool.contains(result.cool),
            Int(result.cool) - Int(result.heat) >= Int(limits.deadBand)
        else {
            throw RPCError(
                code: .invalidArgument,
                message: "setpoints \(result.heat) and \(result.cool) must be at least \(limits.deadBand) apart within their limits")
        }
        return result
    }
}

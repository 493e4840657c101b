import HearthDriverKit
import HearthTypes
import Synchronization

extension ClimateSimulation {
    /// One drift step: sensors and thermostats move, occupancy and contact sensors may flip (emitting
    /// their events). Devices whose main trait is remote hold still while the cloud link is cut.
    public func drift() {
        state.withLock { s in
            for entry in s.installed {
                let plan = entry.plan
                guard cloud.isReachable(device: plan.id, trait: plan.kind.mainTrait, endpoint: 1) else { continue }
                drift(plan, entry.device, random: &s.random)
            }
        }
    }

    private func drift(_ plan: PlannedClimateDevice, _ device: DriverDevice, random: inout SeededGenerator) {
        switch plan.kind {
        case .temperatureSensor:
            let now = (try? device.attributes(Matter.TemperatureMeasurementTrait.self).measuredValue) ?? plan.startTemperature
            let next = Int16(plan.temperature.next(after: Double(now), using: &random).rounded())
            try? device.report(Matter.TemperatureMeasurementTrait.self) { $0.measuredValue = next }
        case .humiditySensor:
            let now = (try? device.attributes(Matter.RelativeHumidityMeasurementTrait.self).measuredValue) ?? plan.startHumidity
            let next = UInt16(plan.humidity.next(after: Double(now), using: &random).rounded())
            try? device.report(Matter.RelativeHumidityMeasurementTrait.self) { $0.measuredValue = next }
        case .occupancySensor:
            guard random.chance(configuration.occupancyChance),
                let now = try? device.attributes(Matter.OccupancySensingTrait.self).occupancy
            else { return }
            let next: Matter.OccupancySensingTrait.OccupancyBitmap = now.contains(.occupied) ? [] : .occupied
            try? device.report(Matter.OccupancySensingTrait.self) { $0.occupancy = next }
            try? device.emit(Matter.OccupancySensingTrait.OccupancyChangedEvent(occupancy: next))
        case .contactSensor:
            guard random.chance(configuration.contactChance),
                let now = try? device.attributes(Matter.BooleanStateTrait.self).stateValue
            else { return }
            try? device.report(Matter.BooleanStateTrait.self) { $0.stateValue = !now }
            try? device.emit(Matter.BooleanStateTrait.StateChangeEvent(stateValue: !now))
        case .thermostat:
            guard let now = try? device.attributes(Matter.ThermostatTrait.self) else { return }
            let input = ThermostatModel.Input(
                localTemperature: now.localTemperature ?? plan.startTemperature,
                heatingSetpoint: now.occupiedHeatingSetpoint ?? 2000, coolingSetpoint: now.occupiedCoolingSetpoint ?? 2600,
                systemMode: now.systemMode ?? .off, running: now.thermostatRunningState ?? [])
            let output = ThermostatModel(room: plan.temperature).step(input, using: &random)
            try? device.report(Matter.ThermostatTrait.self) {
                $0.localTemperature = output.localTemperature
                $0.thermostatRunningState = output.running
                $0.thermostatRunningMode = output.runningMode
                $0.piHeatingDemand = output.heatingDemand
                $0.piCoolingDemand = output.coolingDemand
            }
        case .fan, .doorLock:
            return
        }
    }

    /// One step of the fast clock: fans follow their setting, unlocked locks whose time is up lock again.
    public func tick(at now: ContinuousClock.Instant) {
        state.withLock { s in
            for entry in s.installed where entry.plan.kind == .fan {
                guard cloud.isReachable(device: entry.plan.id, trait: entry.plan.kind.mainTrait, endpoint: 1) else { continue }
                follow(entry.device)
            }
            for (id, at) in s.relockAt where at <= now {
                s.relockAt[id] = nil
                guard let entry = s.installed.first(where: { $0.plan.id == id }) else { continue }
                try? entry.device.report(Matter.DoorLockTrait.self) { $0.lockState = .locked }
                try? entry.device.emit(Self.operation(.lock, source: .auto))
            }
        }
    }

    /// Moves a fan's actual speed towards its setting, and takes a deprecated mode as the one it means.
    private func follow(_ device: DriverDevice) {
        guard let fan = try? device.attributes(Matter.FanControlTrait.self), let mode = fan.fanMode else { return }
        let target = FanModel.target(mode: mode, setting: fan.percentSetting)
        let current = fan.percentCurrent ?? 0
        let normalized = FanModel.normalized(mode)
        guard current != target || normalized != mode else { return }
        try? device.report(Matter.FanControlTrait.self) {
            $0.percentCurrent = FanModel.follow(current: current, target: target)
            $0.fanMode = normalized
        }
    }

    static func operation(
        _ type: Matter.DoorLockTrait.LockOperationTypeEnum, source: Matter.DoorLockTrait.OperationSourceEnum
    ) -> Matter.DoorLockTrait.LockOperationEvent {
        .init(lockOperationType: type, operationSource: source, userIndex: nil, fabricIndex: nil, sourceNode: nil)
    }
}

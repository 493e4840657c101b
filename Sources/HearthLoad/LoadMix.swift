public import HearthDriverKit
public import HearthModel
import HearthSimulator
import HearthTypes

/// The devices of one load driver: the shipped simulators' own mix (three lights or plugs for every two
/// climate devices: sensors, thermostats, fans, locks), each with a ``LoadProbe`` on its first endpoint.
public struct LoadDevice: Sendable {
    /// What a report changes on the device.
    public enum Change: Sendable, Hashable {
        case level(ClosedRange<UInt8>), onOff, thermostat, temperature, humidity, occupancy, contact, fan, lock
    }

    /// The driver's id of the device.
    public var id: String
    /// The description the driver announces.
    public var description: DeviceDescription
    /// The attribute each report changes.
    public var change: Change
    /// Whether the device has an OnOff trait (commands toggle it).
    public var hasOnOff: Bool
}

extension LoadDevice.Change {
    /// Reports change number `seq` (1, 2, …) on a device whose reports make this change, with its probe: the
    /// real attribute, then the probe, with `reportTogether`, so that they leave in the same DriverKit report
    /// and the hub applies both in one revision (a report split between them, which the writer busy with
    /// another device's can still make, shows as an `intermediate` delivery, not an error). A load driver keeps only its devices' changes at hand: reaching a
    /// `LoadDevice` in its array copied the whole description for every report.
    public func report(_ seq: UInt64, sentAt: UInt64, on handle: DriverDevice) throws(DriverError) {
        let odd = seq % 2 == 1
        try handle.reportTogether { device throws(DriverError) in
            switch self {
            case .level(let levels):
                let span = UInt64(levels.upperBound - levels.lowerBound) + 1
                try device.report(Matter.LevelControlTrait.self) { $0.currentLevel = levels.lowerBound + UInt8(seq % span) }
            case .onOff: try device.report(Matter.OnOffTrait.self) { $0.onOff = odd }
            case .thermostat: try device.report(Matter.ThermostatTrait.self) { $0.localTemperature = 1800 + Int16(seq % 600) }
            case .temperature:
                try device.report(Matter.TemperatureMeasurementTrait.self) { $0.measuredValue = 1800 + Int16(seq % 600) }
            case .humidity:
                try device.report(Matter.RelativeHumidityMeasurementTrait.self) { $0.measuredValue = 3000 + UInt16(seq % 4000) }
            case .occupancy: try device.report(Matter.OccupancySensingTrait.self) { $0.occupancy = odd ? .occupied : [] }
            case .contact: try device.report(Matter.BooleanStateTrait.self) { $0.stateValue = odd }
            case .fan: try device.report(Matter.FanControlTrait.self) { $0.percentCurrent = UInt8(seq % 101) }
            case .lock: try device.report(Matter.DoorLockTrait.self) { $0.doorState = odd ? .doorOpen : .doorClosed }
            }
            try device.report(trait: LoadProbe.traitID, [LoadProbe.seq: .uint(seq), LoadProbe.sentAt: .uint(sentAt)])
        }
    }
}

/// Builds the devices of each load driver.
public enum LoadMix {
    /// `count` devices for driver number `driver`; the same arguments give the same devices.
    public static func devices(count: Int, driver: Int) -> [LoadDevice] {
        let climateCount = count * 2 / 5
        let seed = UInt64(driver + 1)
        var lights = LightsPlan.devices(count: count - climateCount, seed: seed, remoteShare: 0)[...]
        var climate = ClimatePlan.devices(count: climateCount, seed: seed, remoteShare: 0)[...]
        var out: [LoadDevice] = []
        out.reserveCapacity(count)
        // Interleaved so that any slice of the drivers' devices has the mix.
        for index in 0..<count {
            if index % 5 >= 3, let device = climate.popFirst() {
                out.append(Self.device(device))
            } else if let light = lights.popFirst() {
                out.append(Self.device(light))
            } else if let device = climate.popFirst() {
                out.append(Self.device(device))
            }
        }
        return out
    }

    static func device(_ light: PlannedLight) -> LoadDevice {
        let features = light.kind.features
        return probed(
            light.description, change: features.level ? .level(features.levels) : .onOff, hasOnOff: true)
    }

    static func device(_ planned: PlannedClimateDevice) -> LoadDevice {
        let change: LoadDevice.Change =
            switch planned.kind {
            case .thermostat: .thermostat
            case .temperatureSensor: .temperature
            case .humiditySensor: .humidity
            case .occupancySensor: .occupancy
            case .contactSensor: .contact
            case .fan: .fan
            case .doorLock: .lock
            }
        return probed(planned.description, change: change, hasOnOff: false)
    }

    static func probed(_ description: DeviceDescription, change: LoadDevice.Change, hasOnOff: Bool) -> LoadDevice {
        var description = description
        description.endpoints[0].traits.append(
            TraitDescription(traitID: LoadProbe.traitID, attributes: [LoadProbe.seq: .uint(0), LoadProbe.sentAt: .uint(0)]))
        return LoadDevice(id: description.id, description: description, change: change, hasOnOff: hasOnOff)
    }
}

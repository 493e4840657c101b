public import HearthDriverKit
public import HearthModel
import HearthTypes

/// The kinds of device the climate driver simulates.
public enum ClimateKind: String, Sendable, Hashable, CaseIterable {
    case thermostat, temperatureSensor, humiditySensor, occupancySensor, contactSensor, fan, doorLock

    /// The prefix of the device ids (`thermostat-1`, `temperature-2`…).
    public var idPrefix: String {
        switch self {
        case .thermostat: "thermostat"
        case .temperatureSensor: "temperature"
        case .humiditySensor: "humidity"
        case .occupancySensor: "occupancy"
        case .contactSensor: "contact"
        case .fan: "fan"
        case .doorLock: "lock"
        }
    }

    /// The device's main trait: the one a cloud carries when the device is remote.
    public var mainTrait: TraitID {
        switch self {
        case .thermostat: Matter.ThermostatTrait.traitID
        case .temperatureSensor: Matter.TemperatureMeasurementTrait.traitID
        case .humiditySensor: Matter.RelativeHumidityMeasurementTrait.traitID
        case .occupancySensor: Matter.OccupancySensingTrait.traitID
        case .contactSensor: Matter.BooleanStateTrait.traitID
        case .fan: Matter.FanControlTrait.traitID
        case .doorLock: Matter.DoorLockTrait.traitID
        }
    }

    var deviceTypeID: DeviceTypeID {
        switch self {
        case .thermostat: ThermostatDeviceType.deviceTypeID
        case .temperatureSensor: TemperatureSensorDeviceType.deviceTypeID
        case .humiditySensor: HumiditySensorDeviceType.deviceTypeID
        case .occupancySensor: OccupancySensorDeviceType.deviceTypeID
        case .contactSensor: ContactSensorDeviceType.deviceTypeID
        case .fan: FanDeviceType.deviceTypeID
        case .doorLock: DoorLockDeviceType.deviceTypeID
        }
    }

    var names: [String] {
        switch self {
        case .thermostat: ["Thermostat"]
        case .temperatureSensor: ["Temperature sensor", "Thermometer"]
        case .humiditySensor: ["Humidity sensor", "Hygrometer"]
        case .occupancySensor: ["Motion sensor", "Presence sensor"]
        case .contactSensor: ["Window sensor", "Door sensor", "Cabinet sensor"]
        case .fan: ["Ceiling fan", "Desk fan", "Tower fan"]
        case .doorLock: ["Front door lock", "Back door lock", "Side door lock"]
        }
    }

    var product: Product {
        switch self {
        case .thermostat: Product(vendorName: "Warmth Works", vendorID: 0xFFF2, productName: "Smart Thermostat T3", productID: 0x4001, serialPrefix: "WWT")
        case .temperatureSensor: Product(vendorName: "Sensably", vendorID: 0xFFF4, productName: "Temp Sense", productID: 0x5001, serialPrefix: "STS")
        case .humiditySensor: Product(vendorName: "Sensably", vendorID: 0xFFF4, productName: "Humid Sense", productID: 0x5002, serialPrefix: "SHS")
        case .occupancySensor: Product(vendorName: "Sensably", vendorID: 0xFFF4, productName: "Motion Sense PIR", productID: 0x5003, serialPrefix: "SMS")
        case .contactSensor: Product(vendorName: "Sensably", vendorID: 0xFFF4, productName: "Contact Sense", productID: 0x5004, serialPrefix: "SCS")
        case .fan: Product(vendorName: "Breezy", vendorID: 0xFFF3, productName: "Breezy Fan 40", productID: 0x6001, serialPrefix: "BZF")
        case .doorLock: Product(vendorName: "Boltline", vendorID: 0xFFF1, productName: "Boltline Deadbolt", productID: 0x7001, serialPrefix: "BLD")
        }
    }

    /// How often the kind appears after the first devices (which show one of each).
    static let mix: [(ClimateKind, Double)] = [
        (.temperatureSensor, 0.2), (.humiditySensor, 0.15), (.occupancySensor, 0.2), (.contactSensor, 0.25),
        (.fan, 0.1), (.thermostat, 0.05), (.doorLock, 0.05),
    ]
}

/// One device of the simulated climate: who it is, where, and the room it measures.
public struct PlannedClimateDevice: Sendable, Hashable {
    /// Its place in the driver (0-based); the id is built from it.
    public var index: Int
    /// What kind of device it is.
    public var kind: ClimateKind
    /// `<kind>-<index+1>`: `thermostat-1`, `temperature-2`, `lock-7`…
    public var id: String
    /// The suggested name.
    public var name: String
    /// The suggested room.
    public var room: String?
    /// What product it is (BasicInformation).
    public var product: Product
    /// Its serial number.
    public var serialNumber: String
    /// Whether its main trait comes through a cloud.
    public var isRemote: Bool
    /// The room's temperature, in 0.01 °C (sensors and thermostats).
    public var temperature: RandomWalk
    /// The room's relative humidity, in 0.01 %.
    public var humidity: RandomWalk
    /// Starting values drawn for the device.
    public var startTemperature: Int16
    /// The humidity at start, in 0.01 %.
    public var startHumidity: UInt16
    /// A coin drawn for the start: thermostat in heat (else auto), sensor occupied or closed, fan at medium (else off).
    public var startFlag: Bool

    /// The device as announced: one endpoint of its kind with Identify and its main trait.
    public var description: DeviceDescription {
        let locality: DataSourceLocality = isRemote ? .remote : .local
        let identify = TraitDescription.trait(Matter.IdentifyTrait.self) {
            $0.identifyTime = 0
            $0.identifyType = kind == .doorLock ? .audibleBeep : .visibleIndicator
        }
        return DeviceDescription(
            id: id, name: name, room: room,
            basicInformation: product.basicInformation(serialNumber: serialNumber),
            endpoints: [EndpointDescription(deviceTypeID: kind.deviceTypeID, traits: [identify, mainTrait(locality)])])
    }

    private func mainTrait(_ locality: DataSourceLocality) -> TraitDescription {
        switch kind {
        case .thermostat:
            .trait(Matter.ThermostatTrait.self, locality: locality) {
                $0.localTemperature = startTemperature
                $0.outdoorTemperature = nil
                $0.occupancy = .occupied
                $0.absMinHeatSetpointLimit = 700
                $0.absMaxHeatSetpointLimit = 3000
                $0.absMinCoolSetpointLimit = 1600
                $0.absMaxCoolSetpointLimit = 3200
                $0.minHeatSetpointLimit = 700
                $0.maxHeatSetpointLimit = 3000
                $0.minCoolSetpointLimit = 1600
                $0.maxCoolSetpointLimit = 3200
                $0.occupiedHeatingSetpoint = 2000
                $0.occupiedCoolingSetpoint = 2600
                $0.minSetpointDeadBand = 25
                $0.localTemperatureCalibration = 0
                $0.controlSequenceOfOperation = .coolingAndHeating
                $0.systemMode = startFlag ? .heat : .auto
                $0.thermostatRunningMode = .off
                $0.thermostatRunningState = []
                $0.piHeatingDemand = 0
                $0.piCoolingDemand = 0
            }
        case .temperatureSensor:
            .trait(Matter.TemperatureMeasurementTrait.self, locality: locality) {
                $0.measuredValue = startTemperature
                $0.minMeasuredValue = -4000
                $0.maxMeasuredValue = 12500
                $0.tolerance = 50
            }
        case .humiditySensor:
            .trait(Matter.RelativeHumidityMeasurementTrait.self, locality: locality) {
                $0.measuredValue = startHumidity
                $0.minMeasuredValue = 0
                $0.maxMeasuredValue = 10000
                $0.tolerance = 200
            }
        case .occupancySensor:
            .trait(Matter.OccupancySensingTrait.self, locality: locality) {
                $0.occupancy = startFlag ? .occupied : []
                $0.occupancySensorType = .pir
                $0.occupancySensorTypeBitmap = .pir
                $0.holdTime = 30
            }
        case .contactSensor:
            .trait(Matter.BooleanStateTrait.self, locality: locality) { $0.stateValue = startFlag }
        case .fan:
            .trait(Matter.FanControlTrait.self, locality: locality) {
                $0.fanMode = startFlag ? .medium : .off
                $0.fanModeSequence = .offLowMedHighAuto
                $0.percentSetting = startFlag ? 66 : 0
                $0.percentCurrent = startFlag ? 66 : 0
                $0.airflowDirection = .forward
            }
        case .doorLock:
            .trait(Matter.DoorLockTrait.self, locality: locality) {
                $0.lockState = .locked
                $0.lockType = .deadBolt
                $0.actuatorEnabled = true
                $0.doorState = .doorClosed
                $0.operatingMode = .normal
                $0.supportedOperatingModes = Matter.DoorLockTrait.OperatingModesBitmap(rawValue: 0xFFF6)
                $0.autoRelockTime = 0
                $0.soundVolume = .low
                $0.language = "en"
            }
        }
    }
}

/// The devices of the climate driver for a seed: the first seven are one of each kind, the rest a seeded
/// mix. Device `i` is the same for a seed whatever the device count.
public enum ClimatePlan {
    /// `count` devices for `seed`; a `remoteShare` of them get their main trait through a cloud.
    public static func devices(count: Int, seed: UInt64, remoteShare: Double, rooms: RoomPlan = RoomPlan()) -> [PlannedClimateDevice] {
        var names = DeviceNames()
        return (0..<max(count, 0)).map { index in
            var random = SeededGenerator(seed: seed, stream: "climate/\(index)")
            let kind = index < ClimateKind.allCases.count ? ClimateKind.allCases[index] : random.weighted(ClimateKind.mix)
            let room = rooms.room(for: index, using: &random)
            let name = names.name(kind.names.randomElement(using: &random)!, in: room)
            let isRemote = random.chance(remoteShare)
            let temperature = RandomWalk(
                mean: Self.roomTemperature(room) + Double.random(in: -100...100, using: &random), step: 12,
                bounds: 500...3800)
            let humidity = RandomWalk(
                mean: Self.roomHumidity(room) + Double.random(in: -300...300, using: &random), step: 60,
                bounds: 1500...9000)
            return PlannedClimateDevice(
                index: index, kind: kind, id: "\(kind.idPrefix)-\(index + 1)", name: name, room: room,
                product: kind.product, serialNumber: kind.product.serialNumber(using: &random), isRemote: isRemote,
                temperature: temperature, humidity: humidity,
                startTemperature: Int16(temperature.mean.rounded()), startHumidity: UInt16(humidity.mean.rounded()),
                startFlag: random.chance(0.5))
        }
    }

    /// A room's usual temperature in 0.01 °C.
    static func roomTemperature(_ room: String?) -> Double {
        switch room {
        case "Bathroom": 2300
        case "Kitchen": 2200
        case "Bedroom": 1900
        case "Garage": 1400
        case "Hallway": 1950
        default: 2100
        }
    }

    /// A room's usual relative humidity in 0.01 %.
    static func roomHumidity(_ room: String?) -> Double {
        switch room {
        case "Bathroom": 6200
        case "Kitchen": 5000
        case "Garage": 5500
        default: 4300
        }
    }
}

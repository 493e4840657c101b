import HearthDriverKit
import HearthModel
import HearthProto
import HearthSimulator
import HearthTypes
import HearthWire
import Testing

/// The climate simulation in-process against a real hub, with fast clocks.
@Suite("hearth-driver-climate against a real hub")
struct ClimateDriverTests {
    typealias Thermostat = Matter.ThermostatTrait
    typealias Fan = Matter.FanControlTrait
    typealias Lock = Matter.DoorLockTrait

    static func simulation(
        port: Int, remoteShare: Double = 0, cloud: CloudLink? = nil, _ adjust: (inout ClimateSimulation.Configuration) -> Void = { _ in }
    ) -> (Driver, ClimateSimulation) {
        var configuration = ClimateSimulation.Configuration(devices: 7, seed: 7)
        configuration.remoteShare = remoteShare
        configuration.driftInterval = .milliseconds(50)
        configuration.tick = .milliseconds(50)
        adjust(&configuration)
        let driver = Driver.simulated(Tokens.climate, port: port)
        let simulation = ClimateSimulation(
            configuration: configuration, cloud: cloud ?? CloudLink(every: nil, length: .seconds(1)))
        simulation.install(on: driver)
        return (driver, simulation)
    }

    /// The hub id of the first planned device of `kind`.
    static func id(_ simulation: ClimateSimulation, _ kind: ClimateKind) -> String {
        "climate/\(simulation.devices.first { $0.kind == kind }!.id)"
    }

    @Test("a seed gives the same devices, one of each kind first, announced with their device types")
    func devicesForASeed() async throws {
        let plan = ClimatePlan.devices(count: 10, seed: 7, remoteShare: 0.25)
        #expect(plan == ClimatePlan.devices(count: 10, seed: 7, remoteShare: 0.25))
        #expect(Array(plan.prefix(7)) == ClimatePlan.devices(count: 7, seed: 7, remoteShare: 0.25))
        #expect(plan.prefix(7).map(\.kind) == ClimateKind.allCases)
        #expect(plan.map(\.id) == plan.map { "\($0.kind.idPrefix)-\($0.index + 1)" })
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let (driver, simulation) = Self.simulation(port: client.port)
                try await withSimulation(driver, services: simulation.services) {
                    let devices = try await client.waitForDevices(simulation.devices.map { "climate/\($0.id)" }) {
                        $0.aggregate.connectivityState == .online
                    }
                    for (device, planned) in zip(devices, simulation.devices) {
                        #expect(device.name == planned.name)
                        #expect(device.types.first?.deviceTypeID == planned.description.endpoints[0].deviceTypeID.rawValue)
                        #expect(device.trait(planned.kind.mainTrait.rawValue) != nil)
                        #expect(device.attribute(Matter.BasicInformationTrait.traitID.rawValue, 0x000F) == .string(planned.serialNumber))
                    }
                }
            }
        }
    }

    @Test("sensors drift over a short drift interval; occupancy and contact flip with their events")
    func drift() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let (driver, simulation) = Self.simulation(port: client.port) {
                    $0.occupancyChance = 1
                    $0.contactChance = 1
                }
                let temperature = Self.id(simulation, .temperatureSensor)
                let humidity = Self.id(simulation, .humiditySensor)
                let occupancy = Self.id(simulation, .occupancySensor)
                let contact = Self.id(simulation, .contactSensor)
                let startTemperature = Value.int(Int64(simulation.devices[1].startTemperature))
                let startHumidity = Value.uint(UInt64(simulation.devices[2].startHumidity))
                let seen = try await withSimulation(driver, services: simulation.services) {
                    try await client.watch(.from(0)) { seen in
                        seen.values(temperature, trait: Matter.TemperatureMeasurementTrait.traitID, attribute: 0).contains { $0 != startTemperature }
                            && seen.values(humidity, trait: Matter.RelativeHumidityMeasurementTrait.traitID, attribute: 0).contains { $0 != startHumidity }
                            && seen.events(occupancy, trait: Matter.OccupancySensingTrait.traitID).count >= 3
                            && seen.events(contact, trait: Matter.BooleanStateTrait.traitID).count >= 3
                    }
                }
                let temperatures = seen.values(temperature, trait: Matter.TemperatureMeasurementTrait.traitID, attribute: 0)
                #expect(temperatures.compactMap(\.integerValue).allSatisfy { (500...3800).contains($0) })
                // Each flip raises an event with the new state (events are never coalesced), so they alternate.
                let states = seen.events(contact, trait: Matter.BooleanStateTrait.traitID).map { Value.fields(of: $0.fields)[0] }
                for (a, b) in zip(states, states.dropFirst()) { #expect(a != b, "\(states)") }
                let occupied = seen.events(occupancy, trait: Matter.OccupancySensingTrait.traitID).map { Value.fields(of: $0.fields)[0] }
                for (a, b) in zip(occupied, occupied.dropFirst()) { #expect(a != b, "\(occupied)") }
            }
        }
    }

    @Test("a thermostat heats towards a new setpoint, pushes the other setpoint, raises and lowers, and refuses what it cannot do")
    func thermostat() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let (driver, simulation) = Self.simulation(port: client.port)
                let id = Self.id(simulation, .thermostat)
                let trait = Thermostat.traitID.rawValue
                try await withSimulation(driver, services: simulation.services) {
                    let before = try await client.waitForDevice(id) { $0.aggregate.connectivityState == .online }
                    let start = try #require(before.attribute(trait, Thermostat.AttributeIDs.localTemperature.rawValue)?.integerValue)
                    try await client.write(id, trait: Thermostat.traitID, [
                        Thermostat.AttributeIDs.systemMode: Thermostat.SystemModeEnum.heat.value,
                        Thermostat.AttributeIDs.occupiedHeatingSetpoint: .int(2900),
                    ])
                    let heating = try await client.waitForDevice(id) { device in
                        let state = device.attribute(trait, Thermostat.AttributeIDs.thermostatRunningState.rawValue)
                            .flatMap(Thermostat.RelayStateBitmap.init(value:))
                        let local = device.attribute(trait, Thermostat.AttributeIDs.localTemperature.rawValue)?.integerValue ?? 0
                        return state?.contains(.heat) == true && local >= start + 100
                    }
                    #expect(heating.attribute(trait, Thermostat.AttributeIDs.occupiedCoolingSetpoint.rawValue) == .int(3150), "cooling pushed up to keep the 2.5 °C dead band")

                    try await client.send(id, Thermostat.SetpointRaiseLowerCommand(mode: .heat, amount: -10))
                    try await client.waitForDevice(id) {
                        $0.attribute(trait, Thermostat.AttributeIDs.occupiedHeatingSetpoint.rawValue) == .int(2800)
                    }
                    await expectStatus(.invalidArgument) {
                        try await client.write(id, trait: Thermostat.traitID, [Thermostat.AttributeIDs.occupiedHeatingSetpoint: .int(3500)])
                    }
                    await expectStatus(.invalidArgument) {
                        try await client.write(id, trait: Thermostat.traitID, [Thermostat.AttributeIDs.systemMode: Thermostat.SystemModeEnum.dry.value])
                    }
                    let after = try await client.waitForDevice(id) { _ in true }
                    #expect(after.attribute(trait, Thermostat.AttributeIDs.occupiedHeatingSetpoint.rawValue) == .int(2800))
                }
            }
        }
    }

    @Test("fan mode and speed writes imply each other and the actual speed follows through intermediate values")
    func fan() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let (driver, simulation) = Self.simulation(port: client.port)
                let id = Self.id(simulation, .fan)
                let trait = Fan.traitID.rawValue
                try await withSimulation(driver, services: simulation.services) {
                    try await client.waitForDevice(id) { $0.aggregate.connectivityState == .online }
                    try await client.write(id, trait: Fan.traitID, [Fan.AttributeIDs.fanMode: Fan.FanModeEnum.off.value])
                    try await client.waitForDevice(id) { $0.attribute(trait, Fan.AttributeIDs.percentCurrent.rawValue) == .uint(0) }
                    let mark = try await client.mark()
                    try await client.write(id, trait: Fan.traitID, [Fan.AttributeIDs.fanMode: Fan.FanModeEnum.high.value])
                    let seen = try await client.watch(mark) { seen in
                        seen.values(id, trait: Fan.traitID, attribute: Fan.AttributeIDs.percentCurrent).last == .uint(100)
                    }
                    #expect(seen.values(id, trait: Fan.traitID, attribute: Fan.AttributeIDs.percentSetting).last == .uint(100))
                    let speeds = Set(seen.values(id, trait: Fan.traitID, attribute: Fan.AttributeIDs.percentCurrent).compactMap(\.unsignedValue))
                    #expect(speeds.filter { $0 > 0 && $0 < 100 }.count >= 2, "spun up through intermediate speeds: \(speeds.sorted())")

                    try await client.write(id, trait: Fan.traitID, [Fan.AttributeIDs.percentSetting: .uint(20)])
                    try await client.waitForDevice(id) {
                        $0.attribute(trait, Fan.AttributeIDs.fanMode.rawValue) == Fan.FanModeEnum.low.value
                            && $0.attribute(trait, Fan.AttributeIDs.percentCurrent.rawValue) == .uint(20)
                    }
                    await expectStatus(.invalidArgument) {
                        try await client.write(id, trait: Fan.traitID, [Fan.AttributeIDs.percentSetting: .null])
                    }
                    try await client.send(id, Fan.StepCommand(direction: .decrease))
                    try await client.waitForDevice(id) { $0.attribute(trait, Fan.AttributeIDs.percentSetting.rawValue) == .uint(10) }
                }
            }
        }
    }

    @Test("a lock refuses a wrong PIN with an error event, unlocks with the right one, and relocks after a timeout")
    func lock() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let (driver, simulation) = Self.simulation(port: client.port)
                let id = Self.id(simulation, .doorLock)
                let trait = Lock.traitID.rawValue
                let state = Lock.AttributeIDs.lockState.rawValue
                try await withSimulation(driver, services: simulation.services) {
                    try await client.waitForDevice(id) { $0.aggregate.connectivityState == .online }
                    let mark = try await client.mark()
                    await expectStatus(.permissionDenied) {
                        try await client.send(id, Lock.UnlockDoorCommand(pinCode: Array("9999".utf8)))
                    }
                    try await client.send(id, Lock.UnlockDoorCommand(pinCode: Array("1234".utf8)))
                    try await client.waitForDevice(id) { $0.attribute(trait, state) == Lock.LockStateEnum.unlocked.value }
                    try await client.send(id, Lock.LockDoorCommand())
                    try await client.waitForDevice(id) { $0.attribute(trait, state) == Lock.LockStateEnum.locked.value }
                    try await client.send(id, Lock.UnlockWithTimeoutCommand(timeout: 1))
                    let seen = try await client.watch(mark) { seen in
                        seen.events(id, trait: Lock.traitID).count >= 5
                    }
                    let events = seen.events(id, trait: Lock.traitID).map { ($0.eventID, Value.fields(of: $0.fields)) }
                    #expect(events.map(\.0) == [
                        Lock.LockOperationErrorEvent.id.rawValue, Lock.LockOperationEvent.id.rawValue,
                        Lock.LockOperationEvent.id.rawValue, Lock.LockOperationEvent.id.rawValue, Lock.LockOperationEvent.id.rawValue,
                    ])
                    #expect(events[0].1[2] == Lock.OperationErrorEnum.invalidCredential.value)
                    #expect(events.dropFirst().map { $0.1[0] } == [.enum(1), .enum(0), .enum(1), .enum(0)], "unlock, lock, unlock, relock")
                    #expect(events.last?.1[1] == Lock.OperationSourceEnum.auto.value, "the relock came from the lock itself")
                    #expect(seen.values(id, trait: Lock.traitID, attribute: Lock.AttributeIDs.lockState).last == Lock.LockStateEnum.locked.value)
                }
            }
        }
    }

    @Test("during a cloud cut a remote sensor holds still and is offline, and writes to a remote thermostat are UNAVAILABLE")
    func cloudCut() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let cloud = CloudLink(every: nil, length: .seconds(1))
                let (driver, simulation) = Self.simulation(port: client.port, remoteShare: 1, cloud: cloud)
                let thermostat = Self.id(simulation, .thermostat)
                let sensor = Self.id(simulation, .temperatureSensor)
                try await withSimulation(driver, services: simulation.services) {
                    try await client.waitForDevices([thermostat, sensor]) { $0.aggregate.connectivityState == .online && $0.aggregate.dataSourceLocality == .mixed }
                    cloud.set(up: false)
                    let cut = try await client.waitForDevices([thermostat, sensor]) { $0.aggregate.connectivityState == .partiallyOnline }
                    #expect(cut[1].trait(Matter.TemperatureMeasurementTrait.traitID.rawValue)?.connectivity == .offline)
                    #expect(cut[1].trait(Matter.IdentifyTrait.traitID.rawValue)?.connectivity == .online)
                    await expectStatus(.unavailable) {
                        try await client.write(thermostat, trait: Thermostat.traitID, [Thermostat.AttributeIDs.occupiedHeatingSetpoint: .int(2100)])
                    }
                    let held = try #require(simulation.devices.first { $0.kind == .temperatureSensor })
                    let frozen = try driver.device(held.id)!.attributes(Matter.TemperatureMeasurementTrait.self).measuredValue
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(try driver.device(held.id)!.attributes(Matter.TemperatureMeasurementTrait.self).measuredValue == frozen)
                    cloud.set(up: true)
                    try await client.waitForDevices([thermostat, sensor]) { $0.aggregate.connectivityState == .online }
                }
            }
        }
    }
}

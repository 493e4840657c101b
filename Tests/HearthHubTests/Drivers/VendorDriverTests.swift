import HearthDriverKit
import HearthHub
import HearthModel
import HearthProto
import SwiftProtobuf
import HearthSimulator
import HearthTypes
import HearthWire
import Testing

/// The vendor simulation in-process against a real hub.
@Suite("hearth-driver-vendor against a real hub")
struct VendorDriverTests {
    typealias OnOff = Matter.OnOffTrait
    typealias Level = Matter.LevelControlTrait

    static func simulation(port: Int, devices: Int = 2, remoteShare: Double = 0, cloud: CloudLink? = nil)
        -> (Driver, VendorSimulation)
    {
        var configuration = VendorSimulation.Configuration(devices: devices, seed: 7)
        configuration.remoteShare = remoteShare
        configuration.spinInterval = .milliseconds(100)
        let driver = Driver.simulated(Tokens.vendor, port: port, vendorTraitSchemas: VendorSimulation.vendorTraitSchemas)
        let simulation = VendorSimulation(
            configuration: configuration, cloud: cloud ?? CloudLink(every: nil, length: .seconds(1)))
        simulation.install(on: driver)
        return (driver, simulation)
    }

    /// The builtin catalog without the spinner trait: a hub that only learns it from the driver's schema.
    static var catalogWithoutSpinner: Catalog {
        Catalog(
            traits: Catalog.builtin.traits.values.filter { $0.id != SpinnerSchema.traitID },
            deviceTypes: Array(Catalog.builtin.deviceTypes.values))
    }

    @Test("a hub that does not know the spinner trait learns it from the announced schema and enforces it")
    func schemaAtRunTime() async throws {
        let plan = VendorPlan.devices(count: 6, seed: 7, remoteShare: 0)
        #expect(plan == VendorPlan.devices(count: 6, seed: 7, remoteShare: 0))
        #expect(plan.prefix(3).map(\.kind) == VendorKind.allCases)
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir, configure: { $0.engine.catalog = Self.catalogWithoutSpinner }) { _, client in
                let (driver, simulation) = Self.simulation(port: client.port)
                let spinner = "vendor/\(simulation.devices[0].id)"
                let rpm = SpinnerSchema.rpm
                try await withSimulation(driver, services: simulation.services) {
                    let device = try await client.waitForDevice(spinner) { $0.aggregate.connectivityState == .online }
                    #expect(device.types.first?.deviceTypeID == SpinnerSchema.deviceTypeID.rawValue)
                    #expect(device.trait(SpinnerSchema.traitID.rawValue) != nil)

                    await expectStatus(.invalidArgument) {
                        try await client.write(spinner, trait: SpinnerSchema.traitID, [rpm: .uint(5000)])
                    }
                    await expectStatus(.invalidArgument) {
                        _ = try await client.call(HomeMethods.sendCommand, .with {
                            $0.deviceID = spinner
                            $0.endpoint = 1
                            $0.traitID = SpinnerSchema.traitID.rawValue
                            $0.commandID = SpinnerSchema.spinUp.rawValue
                            $0.fields = Value.protoStruct([SpinnerSchema.targetRPM: .uint(4000)])
                        })
                    }

                    // On, set to 200 rpm, then spun up to 2500: it speeds up over time, never past the schema's limit.
                    try await client.send(spinner, OnOff.OnCommand())
                    try await client.write(spinner, trait: SpinnerSchema.traitID, [rpm: .uint(200)])
                    let mark = try await client.mark()
                    _ = try await client.call(HomeMethods.sendCommand, .with {
                        $0.deviceID = spinner
                        $0.endpoint = 1
                        $0.traitID = SpinnerSchema.traitID.rawValue
                        $0.commandID = SpinnerSchema.spinUp.rawValue
                        $0.fields = Value.protoStruct([SpinnerSchema.targetRPM: .uint(2500)])
                    })
                    let seen = try await client.watch(mark) { seen in
                        seen.values(spinner, trait: SpinnerSchema.traitID, attribute: rpm).contains { ($0.unsignedValue ?? 0) >= 2450 }
                    }
                    let speeds = seen.values(spinner, trait: SpinnerSchema.traitID, attribute: rpm).compactMap(\.unsignedValue)
                    #expect(speeds.filter { $0 > 300 && $0 < 2400 }.count >= 2, "spun up through intermediate speeds: \(speeds)")
                    #expect(speeds.allSatisfy { $0 <= 3000 })
                }
            }
        }
    }

    @Test("the speaker lamp's two OnOff and LevelControl traits, on endpoints 1 and 2, change independently")
    func twoEndpoints() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let (driver, simulation) = Self.simulation(port: client.port)
                let planned = simulation.devices[1]
                #expect(planned.kind == .speakerLight)
                let id = "vendor/\(planned.id)"
                let onOff = OnOff.traitID.rawValue
                let level = Level.traitID.rawValue
                try await withSimulation(driver, services: simulation.services) {
                    let device = try await client.waitForDevice(id) { $0.aggregate.connectivityState == .online }
                    #expect(device.types.map(\.endpoint) == [1, 2])
                    #expect(device.types.map(\.deviceTypeID) == [SpeakerDeviceType.deviceTypeID.rawValue, DimmableLightDeviceType.deviceTypeID.rawValue])
                    #expect(device.types.map(\.primary) == [true, false])

                    try await client.send(id, endpoint: 1, OnOff.OnCommand())
                    try await client.send(id, endpoint: 2, OnOff.OffCommand())
                    try await client.waitForDevice(id) {
                        $0.attribute(onOff, 0, endpoint: 1) == .bool(true) && $0.attribute(onOff, 0, endpoint: 2) == .bool(false)
                    }
                    try await client.send(id, endpoint: 2, OnOff.ToggleCommand())
                    try await client.send(id, endpoint: 1, OnOff.OffCommand())
                    try await client.waitForDevice(id) {
                        $0.attribute(onOff, 0, endpoint: 1) == .bool(false) && $0.attribute(onOff, 0, endpoint: 2) == .bool(true)
                    }
                    let volume = try #require(try await client.waitForDevice(id) { _ in true }.attribute(level, 0, endpoint: 1))
                    try await client.send(id, endpoint: 2, Level.MoveToLevelCommand(level: 33, transitionTime: 2, optionsMask: [], optionsOverride: []))
                    let after = try await client.waitForDevice(id) { $0.attribute(level, 0, endpoint: 2) == .uint(33) }
                    #expect(after.attribute(level, 0, endpoint: 1) == volume, "the speaker's volume did not move")
                }
            }
        }
    }

    @Test("the mirror ball is a standard OnOffLight that also carries the vendor trait; its speed follows the light's switch and writes")
    func vendorTraitOnStandardType() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let (driver, simulation) = Self.simulation(port: client.port, devices: 3)
                let planned = simulation.devices[2]
                #expect(planned.kind == .mirrorBall)
                let id = "vendor/\(planned.id)"
                let rpm = SpinnerSchema.rpm
                try await withSimulation(driver, services: simulation.services) {
                    let device = try await client.waitForDevice(id) { $0.aggregate.connectivityState == .online }
                    #expect(device.types.map(\.deviceTypeID) == [OnOffLightDeviceType.deviceTypeID.rawValue])
                    #expect(device.trait(SpinnerSchema.traitID.rawValue) != nil)
                    #expect(device.trait(OnOff.traitID.rawValue) != nil)

                    try await client.send(id, OnOff.OnCommand())
                    try await client.write(id, trait: SpinnerSchema.traitID, [rpm: .uint(900)])
                    try await client.waitForDevice(id) { ($0.attribute(SpinnerSchema.traitID.rawValue, rpm.rawValue)?.unsignedValue ?? 0) >= 880 }
                    try await client.send(id, OnOff.OffCommand())
                    try await client.waitForDevice(id) { $0.attribute(SpinnerSchema.traitID.rawValue, rpm.rawValue) == .uint(0) }
                }
            }
        }
    }

    @Test("a cloud cut takes a remote spinner's vendor trait offline and refuses spinUp; its switch stays online")
    func cloudCut() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let cloud = CloudLink(every: nil, length: .seconds(1))
                let (driver, simulation) = Self.simulation(port: client.port, remoteShare: 1, cloud: cloud)
                let spinner = "vendor/\(simulation.devices[0].id)"
                try await withSimulation(driver, services: simulation.services) {
                    try await client.waitForDevice(spinner) { $0.aggregate.connectivityState == .online && $0.aggregate.dataSourceLocality == .mixed }
                    cloud.set(up: false)
                    let cut = try await client.waitForDevice(spinner) { $0.aggregate.connectivityState == .partiallyOnline }
                    #expect(cut.trait(SpinnerSchema.traitID.rawValue)?.connectivity == .offline)
                    #expect(cut.trait(OnOff.traitID.rawValue)?.connectivity == .online)
                    await expectStatus(.unavailable) {
                        _ = try await client.call(HomeMethods.sendCommand, .with {
                            $0.deviceID = spinner
                            $0.endpoint = 1
                            $0.traitID = SpinnerSchema.traitID.rawValue
                            $0.commandID = SpinnerSchema.spinUp.rawValue
                            $0.fields = Value.protoStruct([SpinnerSchema.targetRPM: .uint(100)])
                        })
                    }
                    try await client.send(spinner, OnOff.ToggleCommand())
                    cloud.set(up: true)
                    try await client.waitForDevice(spinner) { $0.aggregate.connectivityState == .online }
                }
            }
        }
    }
}

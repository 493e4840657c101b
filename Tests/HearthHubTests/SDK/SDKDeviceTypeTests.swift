import Foundation
import HearthDriverKit
import HearthProto
import HearthSDK
import HearthWire
import Synchronization
import Testing

/// Device types and traits through HearthSDK against a real hub: every type HOME_API ships, BasicInformation,
/// a vendor trait reached by `traits[…]`, and typed commands with their arguments.
@Suite("HearthSDK device types and traits: the shipped types, vendor traits, typed commands")
struct SDKDeviceTypeTests {
    /// The device types HOME_API says to ship first.
    static let shipped: [any DeviceType.Type] = [
        OnOffLightDeviceType.self, DimmableLightDeviceType.self, ColorTemperatureLightDeviceType.self,
        ExtendedColorLightDeviceType.self, OnOffPluginUnitDeviceType.self, FanDeviceType.self,
        HumiditySensorDeviceType.self, TemperatureSensorDeviceType.self, OccupancySensorDeviceType.self,
        ContactSensorDeviceType.self, SpeakerDeviceType.self, ThermostatDeviceType.self, DoorLockDeviceType.self,
        GoogleDoorbellDeviceType.self, GoogleCameraDeviceType.self, ExampleOrganization.SpinnerDeviceType.self,
    ]

    @Test("each shipped device type, announced with its required traits, reads back typed with BasicInformation")
    func shippedTypes() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                for (index, type) in Self.shipped.enumerated() {
                    let found = type.schema
                    let schema = try #require(found, "\(type) is not in the catalog")
                    driver.add(DeviceDescription(
                        id: "type-\(index)", name: schema.name,
                        basicInformation: .trait(Matter.BasicInformationTrait.self) {
                            $0.vendorName = "Hearth"
                            $0.vendorID = 0xFFF1
                            $0.productName = schema.name
                            $0.productID = UInt16(index)
                            $0.serialNumber = "SN-\(index)"
                        },
                        endpoints: [EndpointDescription(
                            deviceTypeID: type.deviceTypeID, traits: schema.requiredTraits.map { TraitDescription(traitID: $0) })]))
                }
                try await withDriver(driver) {
                    let ids = Self.shipped.indices.map { "lights/type-\($0)" }
                    try await client.waitForDevices(ids) { $0.connectivity == .online }
                    let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin)
                    defer { home.close() }
                    let devices = try await home.devices().list()
                    #expect(devices.count == Self.shipped.count)
                    for (index, type) in Self.shipped.enumerated() {
                        let device = try #require(devices.first { $0.id == "lights/type-\(index)" })
                        try await Self.check(type, device, index: index)
                    }
                }
            }
        }
    }

    /// The device reads back as `D` and as nothing else, complete, primary, with its BasicInformation.
    static func check<D: DeviceType>(_ type: D.Type, _ device: HomeDevice, index: Int) async throws {
        #expect(device.types.contains(D.self), "\(D.self)")
        #expect(device.types.all.deviceTypeIDs == [D.deviceTypeID])
        let typed = try #require(await device.types.get(D.self), "\(D.self)")
        #expect(typed.missingRequiredTraits.isEmpty, "\(D.self)")
        #expect(typed.traits.traitIDs == Set(D.schema?.requiredTraits ?? []).union([Matter.BasicInformationTrait.traitID]))
        #expect(typed.metadata.isPrimaryType)
        #expect(typed.metadata.sourceConnectivity == SourceConnectivity(connectivityState: .online, dataSourceLocality: .local))
        let information = try #require(typed.traits[Matter.BasicInformationTrait.self]?.attributes)
        #expect(information.vendorName == "Hearth" && information.vendorID == 0xFFF1)
        #expect(information.productName == D.schema?.name && information.productID == UInt16(index))
        #expect(information.serialNumber == "SN-\(index)")
        let other: any DeviceType.Type = D.self == OnOffLightDeviceType.self ? FanDeviceType.self : OnOffLightDeviceType.self
        let containsOther = device.types.contains(other)
        #expect(!containsOther, "\(D.self) is not \(other)")
    }

    @Test("a vendor trait is reached by traits[…]: attributes, update and commands, checked against its schema")
    func vendorTrait() async throws {
        typealias Spinner = ExampleOrganization.SpinnerTrait
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                driver.add(DeviceDescription(id: "spinner", name: "Spinner", endpoints: [
                    EndpointDescription(ExampleOrganization.SpinnerDeviceType.self, traits: [
                        .trait(Matter.OnOffTrait.self) { $0.onOff = true },
                        .trait(Spinner.self) { $0.rpm = 1200 },
                    ])
                ]))
                let targets = Mutex<[UInt16]>([])
                driver.onCommand(Spinner.SpinUpCommand.self) { command, context in
                    targets.withLock { $0.append(command.targetRpm) }
                    try context.device.report(Spinner.self) { $0.rpm = command.targetRpm }
                }
                try await withDriver(driver) {
                    try await client.waitForDevice("lights/spinner") { $0.connectivity == .online }
                    let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin)
                    defer { home.close() }
                    let device = try await home.cachedDevice("lights/spinner")
                    let type = try #require(await device.types.get(ExampleOrganization.SpinnerDeviceType.self))
                    #expect(type.traits.contains(Spinner.self) && !type.traits.contains(Matter.LevelControlTrait.self))
                    let spinner = try #require(type.traits[Spinner.self])
                    #expect(spinner.attributes.rpm == 1200)
                    #expect(type.matterTraits.onOffTrait?.attributes.onOff == true)
                    // One trait read alone, untyped, equals what the instances hold; an absent trait is nil.
                    let instance = try #require(device.types.all.instances.first)
                    #expect(device.types.all.traitData(Spinner.traitID) == instance.traits.data[Spinner.traitID])
                    #expect(device.types.all.traitData(Spinner.traitID)?.attributes[Spinner.AttributeIDs.rpm] == .uint(1200))
                    #expect(device.types.all.traitData(Matter.LevelControlTrait.traitID) == nil)

                    try await spinner.spinUp(targetRpm: 2000)
                    try await spinner.update { $0.setRpm(500) }
                    await expectHomeError(.invalidArgument) { try await spinner.spinUp(targetRpm: 4000) }
                    await expectHomeError(.invalidArgument) { try await spinner.update { $0.setRpm(3001) } }
                    #expect(targets.withLock { $0 } == [2000], "the refused command never reached the driver")
                    let rpm = try await eventually { () -> UInt16? in
                        let now = try await home.cachedDevice(device.id).types.get(ExampleOrganization.SpinnerDeviceType.self)
                        return now?.traits[Spinner.self]?.attributes.rpm.flatMap { $0 == 500 ? $0 : nil }
                    }
                    #expect(rpm == 500)
                }
            }
        }
    }

    @Test("off, toggle and moveToLevel reach the driver with their typed arguments; traits.contains")
    func typedCommands() async throws {
        try await withHomeAndLights(["lamp"]) { _, _, driver, home in
            let received = Mutex<[String]>([])
            driver.onCommand(Matter.OnOffTrait.OffCommand.self) { _, _ in received.withLock { $0.append("off") } }
            driver.onCommand(Matter.OnOffTrait.ToggleCommand.self) { _, context in
                received.withLock { $0.append("toggle@\(context.endpoint)") }
            }
            driver.onCommand(Matter.LevelControlTrait.MoveToLevelCommand.self) { command, context in
                received.withLock {
                    $0.append("level \(command.level) in \(command.transitionTime ?? 0) mask \(command.optionsMask.rawValue)")
                }
                try context.device.report(Matter.LevelControlTrait.self) { $0.currentLevel = command.level }
            }
            let light = try #require(await home.cachedDevice("lights/lamp").types.get(DimmableLightDeviceType.self))
            #expect(light.traits.contains(Matter.LevelControlTrait.self) && !light.traits.contains(Matter.ColorControlTrait.self))
            try await light.matterTraits.onOffTrait?.off()
            try await light.matterTraits.onOffTrait?.toggle()
            try await light.matterTraits.levelControlTrait?.moveToLevel(
                level: 200, transitionTime: 5, optionsMask: .executeIfOff, optionsOverride: .executeIfOff)
            #expect(received.withLock { $0 } == ["off", "toggle@1", "level 200 in 5 mask 1"])
            let level = try await eventually {
                try await home.cachedDevice("lights/lamp").types.get(DimmableLightDeviceType.self)?.matterTraits
                    .levelControlTrait?.attributes.currentLevel.flatMap { $0 == 200 ? $0 : nil }
            }
            #expect(level == 200)
        }
    }
}

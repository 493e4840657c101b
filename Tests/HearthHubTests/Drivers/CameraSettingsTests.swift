import Foundation
import HearthCameraSim
import HearthModel
import HearthProto
import HearthTypes
import HearthWire
import Testing

/// hearth-driver-camera's push transports and settings against a real hub, and the catalog's value rules
/// enforced by the hub before the driver sees anything.
@Suite("Camera driver: push transports, settings, value rules")
struct CameraSettingsTests {
    typealias Transport = Google.PushAvStreamTransportTrait
    typealias Settings = Google.CameraAvStreamManagementTrait

    static func find(_ client: HubClient, _ device: String, _ id: UInt16? = nil) async throws -> [Transport.TransportConfigurationStruct] {
        try await client.invokeCommand(
            Transport.FindTransportCommand(connectionID: id), on: device, expecting: Transport.FindTransportResponse.self
        ).transportConfigurations
    }

    @Test("findTransport, modifyPushTransport and setTransportStatus; currentConnections follows; recording = any active")
    func transports() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                try await withCameraSimulation(client) { simulation in
                    let id = "camera/camera-0"
                    try await client.waitForDevice(id) { $0.connectivity == .online }
                    let initial = simulation.profiles[0].transports
                    #expect(try await Self.find(client, id) == initial, "the full configurations, options included")
                    #expect(try await Self.find(client, id, 1) == [initial[0]])
                    await expectStatus(.notFound) { _ = try await Self.find(client, id, 99) }

                    var options = CameraProfile.options(id: "x", usage: .analysis, trigger: .continuous, sensitivity: 10, maxDuration: 120)
                    options.url = "https://recordings.example.net/front"
                    options.containerOptions.cmafContainerOptions?.trackName = "hd"
                    try await client.invokeCommand(Transport.ModifyPushTransportCommand(connectionID: 1, transportOptions: options), on: id)
                    #expect(try await Self.find(client, id, 1)[0].transportOptions == options, "the whole struct replaced")
                    await expectStatus(.notFound) {
                        try await client.invokeCommand(Transport.ModifyPushTransportCommand(connectionID: 42, transportOptions: options), on: id)
                    }
                    var insecure = options
                    insecure.url = "http://recordings.example.net/front"
                    await expectStatus(.invalidArgument) {  // the camera's own rule: https only
                        try await client.invokeCommand(Transport.ModifyPushTransportCommand(connectionID: 1, transportOptions: insecure), on: id)
                    }

                    try await client.invokeCommand(Transport.SetTransportStatusCommand(transportStatus: .inactive), on: id)
                    var device = try await client.waitForDevice(id) { device in
                        device.typedAttributes(Transport.self)?.currentConnections?.allSatisfy { $0.transportStatus == .inactive } == true
                    }
                    #expect(device.typedAttributes(Transport.self)?.currentConnections?.first?.transportOptions == options)
                    #expect(!simulation.isRecording("camera-0"))

                    try await client.invokeCommand(Transport.SetTransportStatusCommand(transportStatus: .active, connectionID: 1), on: id)
                    device = try await client.waitForDevice(id) { device in
                        device.typedAttributes(Transport.self)?.currentConnections?.first?.transportStatus == .active
                    }
                    #expect(device.typedAttributes(Transport.self)?.currentConnections?.dropFirst().allSatisfy { $0.transportStatus == .inactive } == true)
                    #expect(simulation.isRecording("camera-0"))
                    await expectStatus(.notFound) {
                        try await client.invokeCommand(Transport.SetTransportStatusCommand(transportStatus: .active, connectionID: 9), on: id)
                    }
                }
            }
        }
    }

    @Test("the writable settings are stored and reported; the camera refuses a viewport outside its sensor")
    func settings() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                try await withCameraSimulation(client) { simulation in
                    let id = "camera/doorbell-1"
                    try await client.waitForDevice(id) { $0.connectivity == .online }
                    let profile = simulation.profiles[1]
                    let viewport = Settings.ViewportStruct(x1: 100, y1: 50, x2: 1199, y2: 899)
                    try await client.writeAttributes(Settings.self, on: id) {
                        $0.microphoneMuted = true
                        $0.recordingMicrophoneMuted = true
                        $0.speakerVolumeLevel = 30
                        $0.imageRotation = 180
                        $0.nightVision = .on
                        $0.statusLightBrightness = .high
                        $0.viewport = viewport
                    }
                    let device = try await client.waitForDevice(id) { $0.typedAttributes(Settings.self)?.imageRotation == 180 }
                    let stored = try #require(device.typedAttributes(Settings.self))
                    #expect(stored.microphoneMuted == true)
                    #expect(stored.recordingMicrophoneMuted == true)
                    #expect(stored.speakerVolumeLevel == 30)
                    #expect(stored.nightVision == .on)
                    #expect(stored.statusLightBrightness == .high)
                    #expect(stored.viewport == viewport)

                    await expectStatus(.invalidArgument) {
                        try await client.writeAttributes(Settings.self, on: id) {
                            $0.viewport = .init(x1: 0, y1: 0, x2: profile.width, y2: 10)
                        }
                    }
                    await expectStatus(.invalidArgument) {  // above speakerMaxLevel (100), within the catalog's 254
                        try await client.writeAttributes(Settings.self, on: id) { $0.speakerVolumeLevel = 200 }
                    }
                    #expect(simulation.counts.writes == 3)
                    let after = try await client.waitForDevice(id) { _ in true }
                    #expect(after.typedAttributes(Settings.self)?.viewport == viewport)
                    #expect(after.typedAttributes(Settings.self)?.speakerVolumeLevel == 30)
                }
            }
        }
    }

    @Test("values outside the catalog's sets are INVALID_ARGUMENT at the hub; the driver never sees them; nothing changes")
    func valueRules() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                try await withCameraSimulation(client) { simulation in
                    let id = "camera/camera-0"
                    try await client.waitForDevice(id) { $0.connectivity == .online }
                    let before = simulation.counts
                    for rotation: UInt16 in [90, 270, 1, 360] {
                        await expectStatus(.invalidArgument) {
                            try await client.writeAttributes(Settings.self, on: id) { $0.imageRotation = rotation }
                        }
                    }
                    let base = simulation.profiles[0].transports[0].transportOptions!
                    var refused: [Transport.TransportOptionsStruct] = []
                    for sensitivity: UInt8 in [0, 2, 7, 11] {
                        var options = base
                        options.triggerOptions.motionSensitivity = sensitivity
                        refused.append(options)
                    }
                    for maxDuration: UInt32 in [0, 20, 45, 300] {
                        var options = base
                        options.triggerOptions.motionTimeControl?.maxDuration = maxDuration
                        refused.append(options)
                    }
                    var zoned = base
                    zoned.triggerOptions.motionZones = [.init(zone: 1, sensitivity: 3)]
                    refused.append(zoned)
                    for options in refused {
                        await expectStatus(.invalidArgument) {
                            try await client.invokeCommand(Transport.ModifyPushTransportCommand(connectionID: 1, transportOptions: options), on: id)
                        }
                        await expectStatus(.invalidArgument) {
                            try await client.invokeCommand(Transport.AllocatePushTransportCommand(transportOptions: options), on: id)
                        }
                    }
                    #expect(simulation.counts == before, "the driver saw none of them")

                    // Nothing changed: the stored values are the announced ones.
                    let device = try await client.waitForDevice(id) { _ in true }
                    #expect(device.typedAttributes(Settings.self)?.imageRotation == 0)
                    #expect(device.typedAttributes(Transport.self)?.currentConnections == simulation.profiles[0].transports)
                    #expect(try await Self.find(client, id) == simulation.profiles[0].transports)

                    // The allowed values pass and reach the driver.
                    var allowed = base
                    allowed.triggerOptions.motionSensitivity = 10
                    allowed.triggerOptions.motionTimeControl?.maxDuration = 180
                    try await client.invokeCommand(Transport.ModifyPushTransportCommand(connectionID: 1, transportOptions: allowed), on: id)
                    try await client.writeAttributes(Settings.self, on: id) { $0.imageRotation = 180 }
                    #expect(simulation.counts.writes == before.writes + 1)
                    #expect(simulation.counts.commands == before.commands + 2, "the modify and the find")
                }
            }
        }
    }
}

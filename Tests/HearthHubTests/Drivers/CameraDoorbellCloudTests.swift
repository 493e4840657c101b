import Foundation
import HearthCameraSim
import HearthModel
import HearthProto
import HearthSimulator
import HearthTypes
import HearthWire
import Testing

/// Doorbell presses and the cloud link of hearth-driver-camera against a real hub.
@Suite("Camera driver: doorbell presses, cloud cuts")
struct CameraDoorbellCloudTests {
    static let pressTrait = Google.DoorbellPressTrait.traitID.rawValue

    @Test("a press on demand reaches a watcher as a doorbellPressed event, once each")
    func pressOnDemand() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                try await withCameraSimulation(client) { simulation in
                    try await client.waitForDevice("camera/doorbell-1") { $0.connectivity == .online }
                    let start = try await client.call(HomeMethods.getHub, .init())
                    try simulation.press("doorbell-1")
                    try simulation.press("doorbell-1")
                    let seen = try await client.watch(.from(start.revision, epoch: start.epoch)) { seen in
                        seen.changes.filter { $0.event.traitID == Self.pressTrait }.count == 2
                    }
                    let presses = seen.changes.filter { $0.event.traitID == Self.pressTrait }.map(\.event)
                    #expect(presses.count == 2)
                    #expect(presses.allSatisfy { $0.deviceID == "camera/doorbell-1" && $0.eventID == 0 && $0.timestampMs > 0 })
                    #expect(throws: CameraError.self) { try simulation.press("camera-0") }
                }
            }
        }
    }

    @Test("with --press-every the doorbells are pressed now and then by themselves")
    func pressesByThemselves() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                try await withCameraSimulation(client, configure: { $0.pressEvery = .milliseconds(100) }) { _ in
                    try await client.waitForDevice("camera/doorbell-1") { $0.connectivity == .online }
                    let start = try await client.call(HomeMethods.getHub, .init())
                    let seen = try await client.watch(.from(start.revision, epoch: start.epoch)) { seen in
                        seen.changes.filter { $0.event.traitID == Self.pressTrait }.count >= 3
                    }
                    #expect(seen.changes.filter { $0.event.traitID == Self.pressTrait }.count >= 3)
                }
            }
        }
    }

    @Test("a cloud cut takes the remote traits offline (partiallyOnline, mixed); the camera refuses until it is back")
    func cloudCut() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                try await withCameraSimulation(client) { simulation in
                    let id = "camera/doorbell-1"
                    try await client.waitForDevice(id) { $0.connectivity == .online }
                    let remote = simulation.profiles[1].remoteTraits.map(\.rawValue)
                    simulation.cloud.set(up: false)
                    try await client.waitForDevice(id) { device in
                        remote.allSatisfy { device.trait($0)?.connectivity == .offline }
                    }
                    // A fresh snapshot, for the device's aggregates (a watch's trait changes carry only the trait).
                    let cut = try await client.waitForDevice(id) { _ in true }
                    #expect(cut.connectivity == .partiallyOnline)
                    #expect(cut.locality == .mixed)
                    #expect(remote.allSatisfy { cut.trait($0)?.connectivity == .offline })
                    #expect(cut.trait(Matter.BasicInformationTrait.traitID.rawValue)?.connectivity == .online)

                    let before = simulation.counts
                    await expectStatus(.unavailable) {
                        try await client.invokeCommand(
                            Google.WebRtcLiveViewTrait.StartLiveViewCommand(offerSdp: ExampleOffer.chrome()), on: id)
                    }
                    await expectStatus(.unavailable) {
                        try await client.writeAttributes(Google.CameraAvStreamManagementTrait.self, on: id) { $0.microphoneMuted = true }
                    }
                    // HearthDriverKit refuses calls to offline traits before any handler runs.
                    #expect(simulation.counts.commands == before.commands && simulation.counts.writes == before.writes)
                    #expect(throws: CameraError.self) { try simulation.press("doorbell-1") }

                    simulation.cloud.set(up: true)
                    try await client.waitForDevice(id) { device in
                        remote.allSatisfy { device.trait($0)?.connectivity == .online }
                    }
                    #expect(try await client.waitForDevice(id) { _ in true }.connectivity == .online)
                    try await client.invokeCommand(
                        Google.WebRtcLiveViewTrait.StartLiveViewCommand(offerSdp: ExampleOffer.chrome()), on: id)
                }
            }
        }
    }
}

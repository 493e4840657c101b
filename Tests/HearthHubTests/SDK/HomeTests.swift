import Foundation
import HearthDriverKit
import HearthHub
import HearthModel
import HearthProto
import HearthSDK
import HearthTypes
import HearthWire
import OpenCombineShim
import SwiftProtobuf
import Synchronization
import Testing

/// HearthSDK against a real hub with a real (in-process) HearthDriverKit driver.
@Suite("HearthSDK: Home, queries, device types, commands, errors")
struct HomeTests {
    @Test("list() waits for the first sync and shows structures, rooms and devices with their types")
    func listing() async throws {
        try await withHomeAndLights(["lamp", "desk"]) { _, client, _, home in
            _ = try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = "Study" })
            let devices = try await home.devices().list()
            #expect(devices.map(\.id).sorted() == ["lights/desk", "lights/lamp"])
            let lamp = try #require(devices.first { $0.id == "lights/lamp" })
            #expect(lamp.name == "Lamp" && lamp.structureID == "home" && lamp.roomID == nil && lamp.isMatterDevice)
            #expect(lamp.types.contains(DimmableLightDeviceType.self))
            #expect(!lamp.types.contains(OnOffLightDeviceType.self))
            let light = try #require(await lamp.types.get(DimmableLightDeviceType.self))
            #expect(light.matterTraits.onOffTrait?.attributes.onOff == false)
            #expect(light.metadata.isPrimaryType)
            #expect(try await home.structures().list().map(\.name) == ["Home"])
            _ = try await eventually { try await home.rooms().list().first { $0.name == "Study" } }
        }
    }

    @Test("typed commands and writes reach the driver; the cache shows the reported state")
    func commandsAndWrites() async throws {
        try await withHomeAndLights(["lamp"]) { _, _, driver, home in
            driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in
                try context.device.report(Matter.OnOffTrait.self) { $0.onOff = true }
            }
            let lamp = try #require(try await home.devices().list().first)
            let light = try #require(await lamp.types.get(DimmableLightDeviceType.self))
            try await light.matterTraits.onOffTrait?.on()
            try await light.matterTraits.onOffTrait?.update { $0.setOnTime(30) }
            let updated = try await eventually { () -> DimmableLightDeviceType? in
                let now = await lamp.types.get(DimmableLightDeviceType.self)
                let onOff = now?.matterTraits.onOffTrait?.attributes
                return onOff?.onOff == true && onOff?.onTime == 30 ? now : nil
            }
            #expect(updated.metadata.sourceConnectivity.connectivityState == .online)
        }
    }

    @Test("hub and driver errors arrive as HomeError codes", arguments: [
        ("unimplemented", HomeError.Code.unimplemented),
        ("failed", .failedPrecondition),
        ("viewer", .permissionDenied),
        ("invalid", .invalidArgument),
        ("offline", .unavailable),
    ])
    func errors(_ case: String, expected: HomeError.Code) async throws {
        try await withHomeAndLights(["lamp"], token: `case` == "viewer" ? Tokens.viewer : Tokens.admin) { _, _, driver, home in
            driver.onCommand(Matter.OnOffTrait.OffCommand.self) { _, _ in
                throw RPCError(code: .failedPrecondition, message: "bulb missing")
            }
            let lamp = try #require(try await home.devices().list().first)
            let onOff = try #require(await lamp.types.get(DimmableLightDeviceType.self)?.matterTraits.onOffTrait)
            if `case` == "offline" { driver.stop() }
            do {
                switch `case` {
                case "unimplemented": try await onOff.toggle()
                case "invalid": try await lamp.types.get(DimmableLightDeviceType.self)?.matterTraits.levelControlTrait?
                    .update { $0.setOnLevel(255) }
                case "offline":
                    _ = try await eventually { await lamp.types.get(DimmableLightDeviceType.self)?.metadata.sourceConnectivity.connectivityState == .offline ? true : nil }
                    try await onOff.on()
                default: try await onOff.off()
                }
                Issue.record("expected \(expected)")
            } catch let error as HomeError {
                #expect(error.code == expected, "\(error)")
            }
        }
    }

    @Test("mutations return the stored object, names cut at 60 code points; the called value is unchanged")
    func mutations() async throws {
        try await withHomeAndLights(["lamp"]) { _, _, _, home in
            let structure = try #require(try await home.structures().list().first)
            let kitchen = try await structure.createRoom(name: "Kitchen")
            let long = String(repeating: "é", count: 70)
            let renamed = try await kitchen.setName(long)
            #expect(renamed.name.count == 60 && kitchen.name == "Kitchen")
            let lamp = try #require(try await home.devices().list().first)
            try await structure.move(device: lamp, to: kitchen)
            let moved = try await eventually { try await home.devices().list().first { $0.roomID == kitchen.id } }
            #expect(moved.id == lamp.id)
            let named = try await moved.setName("Hall lamp")
            #expect(named.name == "Hall lamp" && named.roomID == kitchen.id)
            try await structure.deleteRoom(kitchen)
            _ = try await eventually { try await home.devices().list().first { $0.roomID == nil && $0.name == "Hall lamp" } }
        }
    }
}

/// A hub, a `lights` driver with dimmable lights, and a `Home` connected with `token`.
func withHomeAndLights(
    _ ids: [String], token: String = Tokens.admin, configuration: Home.Configuration = .init(),
    _ body: (Hub, HubClient, Driver, Home) async throws -> Void
) async throws {
    try await withTemporaryDirectory { dir in
        try await withHub(directory: dir) { hub, client in
            let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
            for id in ids { driver.add(dimmableLight(id)) }
            let running = Task { try await driver.run() }
            defer {
                driver.stop()
                running.cancel()
            }
            for id in ids { try await client.waitForDevice("lights/\(id)") { $0.connectivity == .online } }
            let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: token, configuration: configuration)
            defer { home.close() }
            try await body(hub, client, driver, home)
        }
    }
}

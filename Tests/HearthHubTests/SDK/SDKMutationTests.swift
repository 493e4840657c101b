import Foundation
import HearthProto
import HearthSDK
import SwiftProtobuf
import Testing

/// The mutations of `Structure`, `Room` and `HomeDevice` in every form HOME_API lists (objects and ids),
/// against a real hub; `HomeTests.mutations` covers the object forms of createRoom, move and deleteRoom.
@Suite("HearthSDK mutations: every form of move, deleteRoom and setName")
struct SDKMutationTests {
    @Test("move(devices:to:) with objects, move(device:to:) and move(devices:to:) with ids; deleteRoom(id:) unassigns")
    func moveAndDelete() async throws {
        try await withHomeAndLights(["a", "b", "c"]) { _, _, _, home in
            let structure = try #require(try await home.structures().list().first)
            let hall = try await structure.createRoom(name: "Hall")
            let attic = try await structure.createRoom(name: "Attic")
            #expect(hall.structureID == structure.id && attic.structureID == structure.id && hall.id != attic.id)
            let devices = try await home.devices().list().sorted { $0.id < $1.id }
            #expect(devices.map(\.id) == ["lights/a", "lights/b", "lights/c"])

            func rooms() async throws -> [String: String?] {
                Dictionary(uniqueKeysWithValues: try await home.devices().list().map { ($0.id, $0.roomID) })
            }
            try await structure.move(devices: Array(devices.prefix(2)), to: hall)
            _ = try await eventually {
                try await rooms() == ["lights/a": hall.id, "lights/b": hall.id, "lights/c": nil] ? true : nil
            }
            try await structure.move(device: "lights/c", to: attic.id)
            try await structure.move(devices: ["lights/a"], to: attic.id)
            _ = try await eventually {
                try await rooms() == ["lights/a": attic.id, "lights/b": hall.id, "lights/c": attic.id] ? true : nil
            }

            try await structure.deleteRoom(id: attic.id)
            _ = try await eventually { try await home.rooms().list().map(\.id) == [hall.id] ? true : nil }
            _ = try await eventually {
                try await rooms() == ["lights/a": nil, "lights/b": hall.id, "lights/c": nil] ? true : nil
            }
            let left = try await home.devices().list()
            #expect(left.allSatisfy { $0.structureID == structure.id }, "still in the structure, unassigned")
            await expectHomeError(.notFound) { try await structure.deleteRoom(id: attic.id) }
            await expectHomeError(.notFound) { try await structure.move(device: "lights/a", to: attic.id) }
        }
    }

    @Test("setName on a structure, a room and a device cuts at 60 code points and returns the stored object")
    func renames() async throws {
        try await withHomeAndLights(["lamp"]) { _, _, _, home in
            // 40 letters each with a combining accent: 40 characters, 80 code points; cut to 60 code points.
            let long = String(repeating: "e\u{301}", count: 40)
            let cut = String(String.UnicodeScalarView(long.unicodeScalars.prefix(60)))

            let structure = try #require(try await home.structures().list().first)
            let renamed = try await structure.setName(long)
            #expect(renamed.name == cut && renamed.name.unicodeScalars.count == 60 && renamed.id == structure.id)
            #expect(structure.name == "Home", "the value called on is unchanged")

            let room = try await structure.createRoom(name: long + "x")
            #expect(room.name == cut)
            let short = try await room.setName("Den")
            #expect(short.name == "Den" && short.id == room.id && room.name == cut)

            let lamp = try await home.cachedDevice("lights/lamp")
            let named = try await lamp.setName(long)
            #expect(named.name == cut && named.id == lamp.id && lamp.name == "Lamp")
            #expect(named.types == lamp.types, "a rename keeps the device's types")

            _ = try await eventually {
                let stored = [
                    try await home.structures().list().first?.name, try await home.rooms().list().first?.name,
                    try await home.devices().list().first?.name,
                ]
                return stored == [cut, "Den", cut] ? true : nil
            }
        }
    }

    @Test("a viewer may read but not change the home: mutations are permissionDenied")
    func viewer() async throws {
        try await withHomeAndLights(["lamp"], token: Tokens.viewer) { _, client, _, home in
            let structure = try #require(try await home.structures().list().first)
            let lamp = try await home.cachedDevice("lights/lamp")
            await expectHomeError(.permissionDenied) { _ = try await structure.createRoom(name: "Den") }
            await expectHomeError(.permissionDenied) { _ = try await structure.setName("Mine") }
            await expectHomeError(.permissionDenied) { _ = try await lamp.setName("Mine") }
            let room = try await client.call(HomeMethods.createRoom, .with { $0.structureID = structure.id; $0.name = "Den" })
            await expectHomeError(.permissionDenied) { try await structure.move(device: lamp.id, to: room.id) }
            await expectHomeError(.permissionDenied) { try await structure.deleteRoom(id: room.id) }
            _ = try await eventually { try await home.rooms().list().first { $0.id == room.id } }
            #expect(try await home.devices().list().first?.name == "Lamp")
        }
    }
}

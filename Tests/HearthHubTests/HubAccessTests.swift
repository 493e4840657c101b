import Foundation
import HearthHub
import HearthProto
import HearthWire
import SwiftProtobuf
import Testing

@Suite("Access control, mutations and their errors")
struct HubAccessTests {
    @Test("a bearer token is read in any case of 'Bearer' and with stray blanks; anything else is UNAUTHENTICATED")
    func bearerTokens() {
        let driver = Principal.driver(id: "lights")
        let access = AccessControl(tokens: ["tok-1": driver])
        for value in ["Bearer tok-1", "bearer tok-1", "BEARER tok-1", "Bearer  tok-1", "Bearer tok-1 ", " Bearer tok-1"] {
            #expect((try? access.authenticate(authorization: value)) == driver, "\(value)")
        }
        for value in ["Bearer tok-2", "Basic tok-1", "Bearer", "Bearer ", "Bearertok-1", "tok-1", "Bearer tok-1x", "Bearer tok-\u{e9}", "Bearer\u{0}tok-1", "Bearer\ttok-1"] {
            #expect(throws: HubError.self, "\(value)") { try access.authenticate(authorization: value) }
        }
        #expect(throws: HubError.self) { try access.authenticate(authorization: nil) }
    }

    @Test("no token, a malformed one or an unknown one: UNAUTHENTICATED; a driver token on the home service: PERMISSION_DENIED")
    func authentication() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                await expectStatus(.unauthenticated) { _ = try await client.call(HomeMethods.getHub, .init(), token: nil) }
                await expectStatus(.unauthenticated) { _ = try await client.call(HomeMethods.getHub, .init(), token: "nope") }
                await expectStatus(.unauthenticated) {
                    var metadata = Metadata()
                    metadata.add("authorization", Tokens.admin)  // no "Bearer"
                    _ = try await client.wire.unary(HomeMethods.getHub, request: .init(), options: CallOptions(metadata: metadata))
                }
                await expectStatus(.permissionDenied) { _ = try await client.call(HomeMethods.getHub, .init(), token: Tokens.lights) }
                let info = try await client.call(HomeMethods.getHub, .init(), token: Tokens.viewer)
                #expect(info.user == "viewer" && !info.admin)
            }
        }
    }

    @Test("users see only their structures in snapshots and deltas; hidden objects are NOT_FOUND")
    func structureScoping() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let other = try await client.call(HomeMethods.createStructure, .with { $0.name = "Cabin" })
                let hidden = try await client.call(HomeMethods.createRoom, .with { $0.structureID = other.id; $0.name = "Loft" })
                let visible = try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = "Den" })

                let snapshot = try await client.watch(.from(0), token: Tokens.viewer) { $0.synced }
                #expect(snapshot.changes.contains { $0.room.id == visible.id })
                #expect(!snapshot.changes.contains { $0.room.id == hidden.id || $0.structure.id == other.id })

                async let deltas = client.watch(.from(snapshot.last!.revision, epoch: snapshot[0].epoch), token: Tokens.viewer) {
                    seen in seen.changes.contains { $0.room.name == "Study" }
                }
                // Resuming from a revision: renames made before the stream starts still arrive.
                _ = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = hidden.id; $0.name = "Attic" })
                _ = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = visible.id; $0.name = "Study" })
                let seen = try await deltas
                #expect(!seen.changes.contains { $0.room.id == hidden.id })

                await expectStatus(.notFound) {
                    _ = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = hidden.id; $0.name = "x" }, token: Tokens.member)
                }
                await expectStatus(.permissionDenied) {
                    _ = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = visible.id; $0.name = "x" }, token: Tokens.viewer)
                }
                await expectStatus(.permissionDenied) {
                    _ = try await client.call(HomeMethods.createStructure, .with { $0.name = "Mine" }, token: Tokens.member)
                }
                let renamed = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = visible.id; $0.name = "Office" }, token: Tokens.member)
                #expect(renamed.name == "Office")
            }
        }
    }

    @Test("names are cut at 60 code points without error; the answer shows the stored name")
    func nameLimit() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let long = String(repeating: "🏠", count: 70)
                let room = try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = long })
                #expect(room.name.unicodeScalars.count == 60)
                let structure = try await client.call(HomeMethods.renameStructure, .with { $0.structureID = "home"; $0.name = String(repeating: "é", count: 61) })
                #expect(structure.name.unicodeScalars.count == 60)
            }
        }
    }

    @Test("rooms: delete leaves devices unassigned in the structure; moves check room and structure")
    func roomsAndMoves() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                try await withTestDriver(client, devices: [onOffLight("a"), onOffLight("b")]) { _ in
                    let room = try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = "Bedroom" })
                    let moved = try await client.call(HomeMethods.moveDevices, .with { $0.deviceIds = ["lights/a", "lights/b"]; $0.roomID = room.id })
                    #expect(moved.devices.map(\.roomID) == [room.id, room.id])
                    let deleted = try await client.call(HomeMethods.deleteRoom, .with { $0.roomID = room.id })
                    #expect(Set(deleted.unassignedDevices.map(\.id)) == ["lights/a", "lights/b"])
                    #expect(deleted.unassignedDevices.allSatisfy { $0.roomID.isEmpty && $0.structureID == "home" })
                    await expectStatus(.notFound) {
                        _ = try await client.call(HomeMethods.moveDevices, .with { $0.deviceIds = ["lights/a", "lights/zzz"]; $0.structureID = "home" })
                    }
                    await expectStatus(.invalidArgument) {
                        _ = try await client.call(HomeMethods.moveDevices, .with { $0.deviceIds = ["lights/a"] })
                    }
                    let other = try await client.call(HomeMethods.createStructure, .with { $0.name = "Garage" })
                    let otherRoom = try await client.call(HomeMethods.createRoom, .with { $0.structureID = other.id; $0.name = "Bay" })
                    await expectStatus(.failedPrecondition) {
                        _ = try await client.call(HomeMethods.moveDevices, .with { $0.deviceIds = ["lights/a"]; $0.roomID = otherRoom.id; $0.structureID = "home" })
                    }
                    let renamed = try await client.call(HomeMethods.renameDevice, .with { $0.deviceID = "lights/a"; $0.name = "Reading lamp" })
                    #expect(renamed.name == "Reading lamp")
                    await expectStatus(.notFound) { _ = try await client.call(HomeMethods.deleteRoom, .with { $0.roomID = room.id }) }
                }
            }
        }
    }
}

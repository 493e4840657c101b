@testable import HearthHub
import HearthModel
import HearthProto
import SwiftProtobuf
import Testing

@Suite("Log entries of trait changes")
struct LogEntryTests {
    static func device(id: String, endpoint: UInt32, trait: TraitRecord) -> DeviceRecord {
        DeviceRecord(
            id: id, driverID: "d", localID: "l", structureID: "home", roomID: nil, name: "Lamp", isMatterDevice: false,
            types: [TypeInstanceRecord(endpoint: endpoint, deviceTypeID: 0x0101, primary: true, traits: [trait])],
            revision: 7)
    }

    static let states: [(revision: UInt64, endpoint: UInt32, deviceID: String, trait: TraitRecord)] = [
        (1, 1, "lights/lamp-1",
         TraitRecord(traitID: 0x0006, attributes: [0x0000: .bool(true)], connectivity: .online, locality: .local,
                     confirmed: true, revision: 1)),
        (300, 0, "d/" + String(repeating: "x", count: 200),
         TraitRecord(traitID: 0x0008, attributes: [0x0000: .uint(254), 0x0011: .null, 0x4000: .string("é")],
                     connectivity: .offline, locality: .remote, confirmed: false, revision: 300)),
        (UInt64(1) << 40, 70_000, "",
         TraitRecord(traitID: 0xFFF1_FC03, attributes: [:], connectivity: .unknown, locality: .unspecified,
                     confirmed: true, revision: 0)),
        // Every kind of value, nested ones too, and the other connectivity and locality cases.
        (9, 2, "climate/t-1",
         TraitRecord(traitID: 0x0201, attributes: [
            0: .int(-2_000), 1: .int(Int64.min), 2: .uint(UInt64.max), 3: .double(-0.5), 4: .bytes([0, 1, 255]),
            5: .bytes([]), 6: .string(""), 7: .enum(0), 8: .enum(4), 9: .bool(false), 10: .list([]),
            11: .list([.struct([0: .list([.null, .int(3)]), 70_000: .string("x")])]), 12: .struct([:]),
            0xFFFC: .uint(0),
         ], connectivity: .partiallyOnline, locality: .peerToPeer, confirmed: true, revision: 9)),
        (10, 3, "camera/c",
         TraitRecord(traitID: 0x0551, attributes: [0: .double(1e300)], connectivity: .online, locality: .mixed,
                     confirmed: false, revision: 10)),
    ]

    @Test("the framed bytes are swift-protobuf's encoding of the same Change, routed like any device change")
    func sameBytes() throws {
        for (revision, endpoint, deviceID, trait) in Self.states {
            let device = Self.device(id: deviceID, endpoint: endpoint, trait: trait)
            let entry = LogEntry.trait(revision: revision, device: device, endpoint: endpoint, state: trait)
            var change = Hearth_V1_Change()
            change.revision = revision
            change.trait.deviceID = deviceID
            change.trait.endpoint = endpoint
            change.trait.state = trait.proto
            var response = Hearth_V1_WatchResponse()
            response.changes = [change]
            #expect(entry.framed == (try response.serializedBytes() as [UInt8]))
            #expect(Array(entry.change) == (try change.serializedBytes() as [UInt8]))
            let generic = try LogEntry(change, previousStructureID: nil, device: device)
            #expect(entry.route == generic.route)
            #expect(entry.key == generic.key)
            #expect(entry.revision == revision)
            #expect(entry.framedMovedOut == nil)
        }
    }
}

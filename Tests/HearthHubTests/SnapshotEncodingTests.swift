@testable import HearthHub
import HearthModel
import HearthProto
import SwiftProtobuf
import Testing

/// A snapshot's devices are written straight from the graph's records: the bytes must be swift-protobuf's
/// for the same `Change`, framed as one response field.
@Suite("Snapshot encoding: devices written from the graph, byte for byte swift-protobuf's")
struct SnapshotEncodingTests {
    static func trait(_ id: TraitID, _ attributes: [AttributeID: Value], connectivity: ConnectivityState = .online,
                      locality: DataSourceLocality = .local, confirmed: Bool = true, revision: UInt64 = 5) -> TraitRecord {
        TraitRecord(traitID: id, attributes: attributes, connectivity: connectivity, locality: locality,
                    confirmed: confirmed, revision: revision)
    }

    static let devices: [DeviceRecord] = [
        DeviceRecord(
            id: "lights/lamp-1", driverID: "lights", localID: "lamp-1", structureID: "home", roomID: "kitchen",
            name: "Kitchen lamp ☕", isMatterDevice: true,
            types: [
                TypeInstanceRecord(endpoint: 1, deviceTypeID: 0x0101, primary: true, traits: [
                    trait(0x0006, [0: .bool(true)]), trait(0x0008, [0: .uint(254), 0x11: .null, 0x4000: .string("é")]),
                ]),
                TypeInstanceRecord(endpoint: 2, deviceTypeID: 0x0022, primary: false, traits: [
                    trait(0x0006, [0: .bool(false)], connectivity: .offline, locality: .remote, confirmed: false),
                ]),
            ],
            revision: 42),
        // Nothing optional set: no structure, room or name, endpoint 0, no traits, revision 0.
        DeviceRecord(
            id: "v/x", driverID: "v", localID: "x", structureID: nil, roomID: nil, name: "", isMatterDevice: false,
            types: [TypeInstanceRecord(endpoint: 0, deviceTypeID: 0, primary: false, traits: [])], revision: 0),
        DeviceRecord(
            id: "climate/" + String(repeating: "t", count: 150), driverID: "climate", localID: "t", structureID: "s",
            roomID: nil, name: String(repeating: "n", count: 60), isMatterDevice: true,
            types: [
                TypeInstanceRecord(endpoint: 70_000, deviceTypeID: 0x0301, primary: true, traits: [
                    trait(0x0201, [
                        0: .int(-2_000), 1: .int(Int64.min), 2: .uint(UInt64.max), 3: .double(-0.5), 4: .bytes([0, 255]),
                        5: .list([.struct([0: .list([.null, .int(3)]), 70_000: .string("x")])]), 6: .struct([:]),
                        7: .enum(4), 8: .list([]),
                    ], connectivity: .partiallyOnline, locality: .peerToPeer, revision: UInt64(1) << 40),
                    trait(0xFFF1_FC03, [:], connectivity: .unknown, locality: .mixed, revision: 0),
                ]),
            ],
            revision: 300),
    ]

    @Test("each device's framed change equals swift-protobuf's", arguments: [UInt64(0), 1, 300, UInt64(1) << 50])
    func sameBytes(revision: UInt64) throws {
        for device in Self.devices {
            var change = Hearth_V1_Change()
            change.revision = revision
            change.device = device.proto
            let expected = LogEntry.frame(try change.serializedBytes())
            var out: [UInt8] = [0xEE]  // Appends after what is there.
            device.appendFramedChange(revision: revision, to: &out)
            #expect(out == [0xEE] + expected, "\(device.id)")
        }
    }
}

@testable import HearthHub
import HearthModel
import HearthProto
import SwiftProtobuf
import Testing

/// A cold start reads stored rows straight into records; it must give what swift-protobuf's decoding and
/// `init(proto:)` give, and whatever it does not handle must throw so that the store falls back to them.
@Suite("Stored rows read straight into records, as swift-protobuf reads them")
struct RecordDecodingTests {
    /// The snapshot test's devices, and one whose infinity turns into a NaN when one byte is damaged.
    static let devices =
        SnapshotEncodingTests.devices + [
            DeviceRecord(
                id: "v/inf", driverID: "v", localID: "inf", structureID: "home", roomID: nil, name: "∞",
                isMatterDevice: false,
                types: [
                    TypeInstanceRecord(endpoint: 1, deviceTypeID: 0x0302, primary: true, traits: [
                        SnapshotEncodingTests.trait(0x0402, [0: .double(.infinity), 1: .list([.double(-.infinity)])])
                    ])
                ],
                revision: 9)
        ]

    static func viaProtobuf(device bytes: [UInt8], localID: String) throws -> DeviceRecord {
        DeviceRecord(proto: try Hearth_V1_Device(serializedBytes: bytes), localID: localID)
    }

    /// Whether two records hold the same things, compared through their encoding: a damaged double may read
    /// as a NaN, which `==` never finds equal to itself.
    static func same(_ a: DeviceRecord, _ b: DeviceRecord) throws -> Bool {
        let left: [UInt8] = try a.proto.serializedBytes()
        let right: [UInt8] = try b.proto.serializedBytes()
        return a.localID == b.localID && left == right
    }

    static func holdsNaN(_ device: DeviceRecord) -> Bool {
        func nan(_ value: Value) -> Bool {
            switch value {
            case .double(let d): d.isNaN
            case .list(let values): values.contains(where: nan)
            case .struct(let fields): fields.values.contains(where: nan)
            default: false
            }
        }
        return device.types.contains { $0.traits.contains { $0.attributes.values.contains(where: nan) } }
    }

    static func changeBytes(_ trait: TraitRecord) throws -> [UInt8] {
        var change = Hearth_V1_Change()
        change.revision = 77
        change.trait.deviceID = "lights/lamp-1"
        change.trait.endpoint = 3
        change.trait.state = trait.proto
        return try change.serializedBytes()
    }

    @Test("devices, trait states and trait changes read back equal, both ways")
    func sameRecords() throws {
        for device in Self.devices {
            let bytes: [UInt8] = try device.proto.serializedBytes()
            let direct = try bytes.withUnsafeBytes { try DeviceRecord(protoBytes: $0, localID: device.localID) }
            #expect(direct == device)
            #expect(direct == (try Self.viaProtobuf(device: bytes, localID: device.localID)))
            for trait in device.types.flatMap(\.traits) {
                let state: [UInt8] = try trait.proto.serializedBytes()
                #expect(try state.withUnsafeBytes { try TraitRecord(protoBytes: $0) } == trait)
                let change = try Self.changeBytes(trait)
                #expect(try change.withUnsafeBytes { try TraitRecord(changeProtoBytes: $0) } == trait)
            }
        }
    }

    @Test("a damaged row is either read as swift-protobuf reads it or left to swift-protobuf")
    func damagedRows() throws {
        var accepted = 0
        var refused = 0
        var nans = 0
        for device in Self.devices {
            let bytes: [UInt8] = try device.proto.serializedBytes()
            let variants = damagedVariants(of: bytes, keys: [0x0B, 0x0D])
            for variant in variants {
                guard let direct = try? variant.withUnsafeBytes({ try DeviceRecord(protoBytes: $0, localID: "l") })
                else {
                    refused += 1
                    continue
                }
                accepted += 1
                if Self.holdsNaN(direct) { nans += 1 }
                #expect(try Self.same(direct, Self.viaProtobuf(device: variant, localID: "l")), "\(variant)")
            }
        }
        // Both kinds occur: the comparison above is not vacuous, and damage is refused.
        #expect(accepted > 100)
        #expect(refused > 100)
        #expect(nans > 0)
    }

    @Test("what protobuf merges or the reader does not expect is left to swift-protobuf")
    func leftToSwiftProtobuf() throws {
        // A Value whose list member comes twice: protobuf merges the two lists.
        let twoLists: [UInt8] = [0x3A, 0x02, 0x0A, 0x00, 0x3A, 0x02, 0x0A, 0x00]
        #expect(throws: ProtoReader.Unsupported.self) { try twoLists.withUnsafeBytes { try Value(protoBytes: $0) } }
        #expect(Value(proto: try Hearth_V1_Value(serializedBytes: twoLists)) == .list([.null, .null]))
        // Values nested past the reader's depth limit: swift-protobuf's own limit decides.
        var nested = Value.null
        for _ in 0..<(Value.protoReaderDepthLimit + 8) { nested = .list([nested]) }
        let deep: [UInt8] = try nested.proto.serializedBytes()
        #expect(throws: ProtoReader.Unsupported.self) { try deep.withUnsafeBytes { try Value(protoBytes: $0) } }
        #expect(Value(proto: try Hearth_V1_Value(serializedBytes: deep)) == nested)
        // A Change of another kind than a trait.
        var change = Hearth_V1_Change()
        change.deviceRemoved = "lights/lamp-1"
        let removed: [UInt8] = try change.serializedBytes()
        #expect(throws: ProtoReader.Unsupported.self) {
            try removed.withUnsafeBytes { try TraitRecord(changeProtoBytes: $0) }
        }
        // Invalid UTF-8 in a name, which swift-protobuf refuses too; a group; a truncated varint.
        for bad: [UInt8] in [[0x2A, 0x01, 0xFF], [0x0B, 0x0C], [0x50, 0x80]] {
            #expect(throws: ProtoReader.Unsupported.self) {
                try bad.withUnsafeBytes { try DeviceRecord(protoBytes: $0, localID: "l") }
            }
        }
        // Unknown fields of every wire type are skipped, as the conversions ignore them.
        let unknown: [UInt8] = [0x0A, 0x01, 0x61, 0xF8, 0x01, 0x05, 0xF9, 0x01] + [UInt8](repeating: 7, count: 8)
            + [0xFA, 0x01, 0x01, 0x00, 0xFD, 0x01, 1, 2, 3, 4]
        let direct = try unknown.withUnsafeBytes { try DeviceRecord(protoBytes: $0, localID: "l") }
        #expect(direct.id == "a")
        #expect(direct == (try Self.viaProtobuf(device: unknown, localID: "l")))
    }
}

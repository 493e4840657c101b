import HearthModel
import HearthProto
@testable import HearthSDK
import HearthWire
import NIOCore
import SwiftProtobuf
import Testing

/// HearthSDK reads watch responses straight into its cache's compact form; it must give what swift-protobuf's
/// decoding converted gives, and whatever it does not handle must throw so that swift-protobuf decides.
@Suite("SDK: watch responses read straight into the cache, as swift-protobuf reads them")
struct SDKWatchDecodingTests {
    /// One of every kind of value.
    static let values: [Value] = [
        .bool(true), .bool(false), .int(-5), .int(Int64.min), .uint(UInt64.max), .uint(0), .double(-0.5),
        .double(.infinity), .string("Küche ☀︎"), .string(""), .bytes([0, 1, 0xFF]), .bytes([]),
        .list([.uint(1), .null, .list([.string("x")])]), .struct([1: .int(2), 7: .struct([2: .bool(true)])]),
        .enum(3), .null,
    ]

    static func trait(_ id: UInt32, _ values: [Value], revision: UInt64) -> Hearth_V1_TraitState {
        .with {
            $0.traitID = id
            $0.attributes = values.enumerated().map { index, value in .with { $0.id = UInt32(index * 3); $0.value = value.proto } }
            $0.connectivity = .online
            $0.locality = .local
            $0.confirmed = true
            $0.revision = revision
        }
    }

    /// A response with a change of every kind.
    static var response: Hearth_V1_WatchResponse {
        var response = Hearth_V1_WatchResponse()
        response.revision = 99
        response.synced = true
        response.epoch = "e1"
        response.snapshotDevices = 300
        func add(_ fill: (inout Hearth_V1_Change) -> Void) {
            var change = Hearth_V1_Change()
            change.revision = UInt64(response.changes.count + 10)
            fill(&change)
            response.changes.append(change)
        }
        add { $0.structure = .with { $0.id = "home"; $0.name = "Home" } }
        add { $0.room = .with { $0.id = "r1"; $0.structureID = "home"; $0.name = "Study" } }
        add {
            $0.device = .with {
                $0.id = "lights/lamp-1"; $0.driverID = "lights"; $0.structureID = "home"; $0.roomID = "r1"
                $0.name = "Lamp"; $0.isMatterDevice = true; $0.connectivity = .partiallyOnline; $0.locality = .remote
                $0.revision = 12
                $0.types = [
                    .with {
                        $0.endpoint = 1; $0.deviceTypeID = 0x0101; $0.primary = true
                        $0.traits = [trait(6, values, revision: 11), trait(8, [.uint(3)], revision: 12)]
                    },
                    .with { $0.endpoint = 2; $0.deviceTypeID = 0x0302 },
                ]
            }
        }
        add { $0.trait = .with { $0.deviceID = "lights/lamp-1"; $0.endpoint = 1; $0.state = trait(8, Array(values.reversed()), revision: 13) } }
        add { $0.event = .with { $0.deviceID = "lights/lamp-1"; $0.endpoint = 1; $0.traitID = 6 } }
        add { $0.deviceRemoved = "lights/lamp-2" }
        add { $0.roomRemoved = .with { $0.roomID = "r2" } }
        add { $0.structureRemoved = "old" }
        return response
    }

    /// A trait's values, each encoded, by id: comparable when a damaged double reads as a NaN.
    static func encodedValues(_ trait: CompactTrait) -> [AttributeID: [UInt8]] {
        trait.values().mapValues { value in
            var out: [UInt8] = []
            value.appendProto(to: &out)
            return out
        }
    }

    static func same(_ a: CompactTrait, _ b: CompactTrait) -> Bool {
        a.traitID == b.traitID && a.connectivity == b.connectivity && a.locality == b.locality
            && a.confirmed == b.confirmed && a.revision == b.revision && encodedValues(a) == encodedValues(b)
    }

    static func same(_ a: CompactDevice, _ b: CompactDevice) -> Bool {
        (a.id, a.driverID, a.structureID, a.roomID, a.name) == (b.id, b.driverID, b.structureID, b.roomID, b.name)
            && a.isMatterDevice == b.isMatterDevice && a.connectivity == b.connectivity && a.locality == b.locality
            && a.revision == b.revision && a.types.all.count == b.types.all.count
            && zip(a.types.all, b.types.all).allSatisfy { x, y in
                (x.endpoint, x.deviceTypeID, x.primary) == (y.endpoint, y.deviceTypeID, y.primary)
                    && x.traits.count == y.traits.count && zip(x.traits, y.traits).allSatisfy(same)
            }
    }

    /// Whether two batches hold the same things (other changes compared through their encoding).
    static func same(_ a: WatchBatch, _ b: WatchBatch) throws -> Bool {
        guard (a.revision, a.synced, a.relist, a.epoch, a.snapshotDevices) == (b.revision, b.synced, b.relist, b.epoch, b.snapshotDevices),
            a.changes.count == b.changes.count
        else { return false }
        for (x, y) in zip(a.changes, b.changes) {
            guard x.revision == y.revision else { return false }
            switch (x.change, y.change) {
            case (.device(let d), .device(let e)): guard same(d, e) else { return false }
            case (.trait(let i, let p, let s), .trait(let j, let q, let t)): guard i == j, p == q, same(s, t) else { return false }
            case (.other(let c), .other(let d)):
                let (left, right): ([UInt8], [UInt8]) = (try c.serializedBytes(), try d.serializedBytes())
                guard left == right else { return false }
            default: return false
            }
        }
        return true
    }

    static func viaProtobuf(_ bytes: [UInt8]) throws -> WatchBatch {
        WatchBatch(try Hearth_V1_WatchResponse(serializedBytes: bytes))
    }

    @Test("every kind of change and value reads as swift-protobuf reads it")
    func sameBatches() throws {
        let bytes: [UInt8] = try Self.response.serializedBytes()
        let direct = try bytes.withUnsafeBytes { try WatchBatch(protoBytes: $0) }
        #expect(try Self.same(direct, Self.viaProtobuf(bytes)))
        #expect(direct.changes.count == 8)
        #expect(direct.snapshotDevices == 300)
        guard case .device(let device) = direct.changes[2].change else {
            Issue.record("not a device: \(direct.changes[2])")
            return
        }
        // The values are those of the message, one of every kind.
        let expected = Dictionary(uniqueKeysWithValues: Self.values.enumerated().map { (AttributeID(UInt32($0 * 3)), $1) })
        #expect(device.types.all[0].traits[0].values() == expected)
        // A device converted from swift-protobuf's message holds the same bytes.
        #expect(device.types == CompactDevice(Self.response.changes[2].device).types)
        // And the codec the SDK calls with reads it so.
        let decoded = try WatchBatch.watch.responseCodec.deserialize(ByteBuffer(bytes: bytes))
        #expect(try Self.same(decoded, direct))
        // A relist.
        let relist: [UInt8] = try Hearth_V1_WatchResponse.with { $0.relist = .with { $0.reason = .tooOld } }.serializedBytes()
        #expect(try relist.withUnsafeBytes { try WatchBatch(protoBytes: $0) }.relist)
    }

    @Test("a damaged response is either read as swift-protobuf reads it or left to swift-protobuf, through the codec too")
    func damagedResponses() async throws {
        var (accepted, refused, fellBack) = (0, 0, 0)
        let bytes: [UInt8] = try Self.response.serializedBytes()
        // Keys of WatchResponse, Change, Device, TraitState and Value fields of each wire type.
        let variants = damagedVariants(of: bytes, keys: [0x0A, 0x10, 0x22, 0x32, 0x42, 0x4A, 0x09, 0x0B, 0x0D])
        for (index, variant) in variants.enumerated() {
            // Seconds of decoding in one go held one of the two threads of the test process's pool; in a
            // loaded parallel run it and another such loop stalled every other suite for 15 s.
            if index % 64 == 0 { await Task.yield() }
            let proto = try? Self.viaProtobuf(variant)
            let codec = try? WatchBatch.watch.responseCodec.deserialize(ByteBuffer(bytes: variant))
            guard let direct = try? variant.withUnsafeBytes({ try WatchBatch(protoBytes: $0) }) else {
                refused += 1
                // The codec gives swift-protobuf's answer: the same batch, or an error.
                #expect((codec == nil) == (proto == nil), "\(variant)")
                if let codec, let proto {
                    fellBack += 1
                    #expect(try Self.same(codec, proto), "\(variant)")
                }
                continue
            }
            accepted += 1
            guard let proto else {
                Issue.record("read what swift-protobuf refuses: \(variant)")
                continue
            }
            #expect(try Self.same(direct, proto), "\(variant)")
        }
        // All kinds occur: the comparisons above are not vacuous.
        #expect(accepted > 100)
        #expect(refused > 100)
        #expect(fellBack > 0)
    }

    @Test("what protobuf merges or the reader does not expect is left to swift-protobuf")
    func leftToSwiftProtobuf() throws {
        // A trait change whose state comes twice (protobuf merges the two), and a change with two members.
        let state: [UInt8] = try Self.trait(8, [.uint(1)], revision: 1).serializedBytes()
        var traitChange: [UInt8] = [0x0A, 0x01, 0x61]
        for _ in 0..<2 { traitChange += [0x1A, UInt8(state.count)] + state }
        let twoStates: [UInt8] = [0x0A, UInt8(traitChange.count + 2), 0x42, UInt8(traitChange.count)] + traitChange
        let twoMembers: [UInt8] = [0x0A, 0x06, 0x3A, 0x01, 0x61, 0x1A, 0x01, 0x62]
        for bytes in [twoStates, twoMembers] {
            #expect(throws: ProtoReader.Unsupported.self) { try bytes.withUnsafeBytes { try WatchBatch(protoBytes: $0) } }
            let codec = try WatchBatch.watch.responseCodec.deserialize(ByteBuffer(bytes: bytes))
            #expect(try Self.same(codec, Self.viaProtobuf(bytes)))
        }
        // Values nested past the reader's depth limit: in a response they pass swift-protobuf's limit too, whose
        // error stands, as it did before.
        var nested = Value.null
        for _ in 0..<(Value.protoReaderDepthLimit + 8) { nested = .list([nested]) }
        let deep: [UInt8] = try Hearth_V1_WatchResponse.with {
            $0.changes = [.with { $0.trait = .with { $0.deviceID = "a"; $0.state = Self.trait(8, [nested], revision: 1) } }]
        }.serializedBytes()
        #expect(throws: ProtoReader.Unsupported.self) { try deep.withUnsafeBytes { try WatchBatch(protoBytes: $0) } }
        #expect(throws: RPCError.self) { try WatchBatch.watch.responseCodec.deserialize(ByteBuffer(bytes: deep)) }
        #expect(throws: RPCError.self) { try HomeMethods.watch.responseCodec.deserialize(ByteBuffer(bytes: deep)) }
        // A device from an answer (a rename) may hold one: swift-protobuf reads it when a view asks.
        let trait = CompactTrait(Self.trait(8, [nested], revision: 1))
        let kept = try #require(trait.encodedAttributes().first)
        #expect(kept.id == 0)  // one byte of id, then the value's field, which the reader leaves
        #expect(throws: ProtoReader.Unsupported.self) { try Array(kept.entry.dropFirst()).withUnsafeBytes { try Value(protoBytes: $0) } }
        #expect(trait.values() == [AttributeID(0): nested])
    }

    @Test("a trait update replaces the whole trait, or merges the attributes it carries")
    func traitMerge() {
        var cached = CompactTrait(Self.trait(8, [.uint(1), .uint(2), .uint(3)], revision: 1))  // ids 0, 3, 6
        var whole = CompactTrait(Self.trait(8, [.uint(4), .uint(5), .uint(6)], revision: 2))
        cached.merge(attributesOf: whole)
        #expect(cached.values() == [AttributeID(0): .uint(4), AttributeID(3): .uint(5), AttributeID(6): .uint(6)])
        whole.attributes = CompactTrait(.with { $0.attributes = [.with { $0.id = 3; $0.value = Value.string("x").proto }, .with { $0.id = 9 }] }).attributes
        cached.merge(attributesOf: whole)
        #expect(cached.values() == [AttributeID(0): .uint(4), AttributeID(3): .string("x"), AttributeID(6): .uint(6), AttributeID(9): .null])
        #expect(cached.encodedAttributes().map(\.id) == [0, 3, 6, 9])
        // A cached trait's enums are kept as numbers, unknown ones too; the trait stays 32 bytes.
        cached.connectivity = .UNRECOGNIZED(77)
        cached.locality = .remote
        #expect(cached.connectivity == .UNRECOGNIZED(77) && cached.locality == .remote)
        #expect(MemoryLayout<CompactTrait>.stride == 32)
    }
}

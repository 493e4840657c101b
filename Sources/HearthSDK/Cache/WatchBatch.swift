import HearthModel
import HearthProto
import HearthWire
import NIOCore
import SwiftProtobuf

/// One `hearth.v1.WatchResponse` as the cache applies it: devices and trait changes read straight into the
/// cache's compact form (``CompactDevice``), the rest (structures, rooms, removals, events) as swift-protobuf
/// decodes them.
///
/// Decoding each response into a tree of `Change`, `TraitState`, `Attribute` and `Value` messages was about a
/// quarter of the library's time per change, and a device of a snapshot about 12 µs. A response the direct
/// reader does not handle (``ProtoReader`` says which) is decoded by swift-protobuf, whose answer stands, and
/// converted.
struct WatchBatch: Sendable {
    enum Change: Sendable {
        case device(CompactDevice)
        case trait(deviceID: String, endpoint: UInt32, state: CompactTrait)
        /// Anything but a device or a trait change.
        case other(Hearth_V1_Change)
    }

    /// Each change with its revision.
    var changes: [(revision: UInt64, change: Change)] = []
    var revision: UInt64 = 0
    var synced = false
    /// Whether the hub asks for a re-list (the response's `relist` is set).
    var relist = false
    var epoch = ""
    /// How many devices the snapshot this response starts will hold, when the hub said (0: it did not).
    var snapshotDevices: UInt64 = 0

    init() {}

    /// swift-protobuf's decoding, converted.
    init(_ proto: Hearth_V1_WatchResponse) {
        changes = proto.changes.map { change in
            switch change.kind {
            case .device(let device): return (change.revision, .device(CompactDevice(device)))
            case .trait(let trait):
                return (change.revision, .trait(deviceID: trait.deviceID, endpoint: trait.endpoint, state: CompactTrait(trait.state)))
            default: return (change.revision, .other(change))
            }
        }
        (revision, synced, relist, epoch) = (proto.revision, proto.synced, proto.hasRelist, proto.epoch)
        snapshotDevices = proto.snapshotDevices
    }

    /// `HomeService/Watch` as the SDK calls it: responses read as ``WatchBatch``.
    static let watch = MethodDescriptor<Hearth_V1_WatchRequest, WatchBatch>(
        service: HomeMethods.service, method: "Watch", kind: .serverStreaming,
        requestCodec: HomeMethods.watch.requestCodec,
        responseCodec: MessageCodec(
            serialize: { _ in throw RPCError(code: .unimplemented, message: "a client does not send watch responses") },
            deserialize: { buffer in
                let direct = buffer.withUnsafeReadableBytes { try? WatchBatch(protoBytes: $0) }
                if let direct { return direct }
                return WatchBatch(try HomeMethods.watch.responseCodec.deserialize(buffer))
            }))

    /// Reads a `WatchResponse` message body.
    init(protoBytes bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
        // The changes counted first, to hold them in one allocation: grown by doubling, the array of
        // changes (about 150 bytes each) was reallocated and copied seven times for a response of 64, 3.8 %
        // of the process holding the `building` mix's clients.
        changes.reserveCapacity(try Self.count(field: 1, in: bytes))
        var reader = ProtoReader(bytes)
        var types = CompactTypes.Builder()  // one buffer for every device of the response
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: changes.append(try Self.change(reader.delimited(wireType: wireType), types: &types))
            case 2: revision = try reader.varint(wireType: wireType)
            case 3: synced = try reader.varint(wireType: wireType) != 0
            case 4:
                // Only its presence is used; a body swift-protobuf would refuse sends the response to it.
                let body = try reader.delimited(wireType: wireType)
                guard (try? Hearth_V1_Relist(serializedBytes: Array(body))) != nil else { throw ProtoReader.Unsupported() }
                relist = true
            case 5: epoch = try reader.string(wireType: wireType)
            case 6: snapshotDevices = try reader.varint(wireType: wireType)
            default: try reader.skip(wireType: wireType)
            }
        }
    }

    /// How many times field `field` occurs in the message `bytes` (each field's key read, its body skipped).
    private static func count(field: UInt64, in bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) -> Int {
        var reader = ProtoReader(bytes)
        var count = 0
        while let (number, wireType) = try reader.nextField() {
            if number == field { count += 1 }
            try reader.skip(wireType: wireType)
        }
        return count
    }

    /// One `Change` body. A change holding more than one member of its oneof is left to swift-protobuf.
    private static func change(
        _ bytes: UnsafeRawBufferPointer, types: inout CompactTypes.Builder
    ) throws(ProtoReader.Unsupported) -> (UInt64, Change) {
        var reader = ProtoReader(bytes)
        var revision: UInt64 = 0
        var member: (number: UInt64, body: UnsafeRawBufferPointer)?
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: revision = try reader.varint(wireType: wireType)
            case 2...9:
                guard member == nil else { throw ProtoReader.Unsupported() }
                // Every member is length-delimited (messages and strings).
                member = (number, try reader.delimited(wireType: wireType))
            default: try reader.skip(wireType: wireType)
            }
        }
        switch member?.number {
        case 6: return (revision, .device(try CompactDevice(protoBytes: member!.body, types: &types)))
        case 8:
            let (deviceID, endpoint, state) = try traitChange(member!.body)
            return (revision, .trait(deviceID: deviceID, endpoint: endpoint, state: state))
        default:
            do {
                var options = BinaryDecodingOptions()
                options.messageDepthLimit = protobufDepthLimit - 1  // one level inside the response
                return (revision, .other(try Hearth_V1_Change(serializedBytes: Array(bytes), options: options)))
            } catch {
                throw ProtoReader.Unsupported()  // the whole response goes to swift-protobuf, whose error stands
            }
        }
    }

    /// A `TraitChange` body.
    private static func traitChange(
        _ bytes: UnsafeRawBufferPointer
    ) throws(ProtoReader.Unsupported) -> (deviceID: String, endpoint: UInt32, state: CompactTrait) {
        var reader = ProtoReader(bytes)
        var (deviceID, endpoint, state) = ("", UInt32(0), CompactTrait?.none)
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: deviceID = try reader.string(wireType: wireType)
            case 2: endpoint = UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType))
            case 3:
                guard state == nil else { throw ProtoReader.Unsupported() }  // protobuf would merge the two
                state = try CompactTrait(protoBytes: reader.delimited(wireType: wireType))
            default: try reader.skip(wireType: wireType)
            }
        }
        return (deviceID, endpoint, state ?? CompactTrait())
    }
}

extension CompactDevice {
    /// Reads a `Device` message body, its types written by `types` (reset first) and copied out.
    init(protoBytes bytes: UnsafeRawBufferPointer, types: inout CompactTypes.Builder) throws(ProtoReader.Unsupported) {
        types.reset()
        let fields = try DeviceProtoFields(protoBytes: bytes) { body throws(ProtoReader.Unsupported) in
            let start = types.beginType()
            let type = try DeviceTypeInstanceProtoFields(protoBytes: body) { trait throws(ProtoReader.Unsupported) in
                try types.appendTrait(protoBytes: trait)
            }
            types.endType(start, endpoint: type.endpoint, deviceTypeID: type.deviceTypeID, primary: type.primary)
        }
        (id, driverID, structureID, roomID, name) = (fields.id, fields.driverID, fields.structureID, fields.roomID, fields.name)
        (isMatterDevice, connectivity, locality, revision) = (fields.isMatterDevice, fields.connectivity, fields.locality, fields.revision)
        self.types = types.finished()
    }
}

extension CompactTrait {
    /// Reads a `TraitState` message body; each attribute is checked once (so that one the reader cannot take
    /// sends the response to swift-protobuf) and kept encoded.
    init(protoBytes bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
        var attributes: [UInt8] = []
        // The attributes take nearly all of the state: one allocation, not one per growth.
        attributes.reserveCapacity(bytes.count)
        let fields = try Fields(protoBytes: bytes) { CompactAttributes.append(id: $0.id, value: $0.value, to: &attributes) }
        self.init(
            traitID: fields.traitID, attributes: attributes, connectivityNumber: fields.connectivityNumber,
            localityNumber: fields.localityNumber, confirmed: fields.confirmed, revision: fields.revision)
    }
}

extension CompactTrait.Fields {
    /// Reads a `TraitState` message body's own fields, handing each attribute, checked, to `attribute` in
    /// order, as ``CompactAttributes/append(id:value:to:)`` keeps it.
    init(
        protoBytes bytes: UnsafeRawBufferPointer, attribute: (Attribute) -> Void
    ) throws(ProtoReader.Unsupported) {
        var reader = ProtoReader(bytes)
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: traitID = UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType))
            case 2:
                let (id, value) = try Value.checkedIDAndValue(reader.delimited(wireType: wireType))
                attribute(Attribute(id: id, value: value))
            case 3: connectivityNumber = Int32(truncatingIfNeeded: try reader.connectivity(wireType: wireType).rawValue)
            case 4: localityNumber = Int32(truncatingIfNeeded: try reader.locality(wireType: wireType).rawValue)
            case 5: confirmed = try reader.varint(wireType: wireType) != 0
            case 6: revision = try reader.varint(wireType: wireType)
            default: try reader.skip(wireType: wireType)
            }
        }
    }
}

extension CompactTrait.Fields {
    /// One attribute as it stands in a `TraitState`: its id and its value's message body.
    struct Attribute {
        var id: UInt32
        var value: UnsafeRawBufferPointer
    }
}

import HearthModel
import HearthProto
import SwiftProtobuf

/// The store's rows read straight into records (``ProtoReader``), the way ``DeviceRecord/appendFramedChange``
/// writes them: a cold start decodes every device and trait row, and swift-protobuf's generated messages,
/// decoded through generic code and then converted, were about a third of a restart's CPU. Each function
/// gives what `init(proto:)` gives for swift-protobuf's decoding of the same bytes, or throws
/// ``ProtoReader/Unsupported`` for bytes it does not handle; the store then decodes those with swift-protobuf
/// (`RecordDecodingTests` compares the two).
extension TraitRecord {
    /// Reads a `hearth.v1.TraitState` message body.
    init(protoBytes bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
        var reader = ProtoReader(bytes)
        self.init(
            traitID: TraitID(0), attributes: [:], connectivity: .unknown, locality: .unspecified, confirmed: false,
            revision: 0)
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: traitID = TraitID(UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType)))
            case 2:
                let (id, value) = try Value.idAndValue(reader.delimited(wireType: wireType))
                attributes[AttributeID(id)] = value
            case 3: connectivity = ConnectivityState(proto: try reader.connectivity(wireType: wireType))
            case 4: locality = DataSourceLocality(proto: try reader.locality(wireType: wireType))
            case 5: confirmed = try reader.varint(wireType: wireType) != 0
            case 6: revision = try reader.varint(wireType: wireType)
            default: try reader.skip(wireType: wireType)
            }
        }
    }

    /// Reads the trait state of a `hearth.v1.Change` whose kind is `trait` (a state row of kind `change`).
    /// Another kind throws: swift-protobuf would give an empty state, which no row holds.
    init(changeProtoBytes bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
        // Change.trait = 8 (its oneof's other members: 2 to 9); TraitChange.state = 3.
        guard let change = try ProtoReader.onlyMessageField(8, in: bytes, otherMembers: 2...9) else {
            throw ProtoReader.Unsupported()
        }
        let state = try ProtoReader.onlyMessageField(3, in: change)
        try self.init(protoBytes: state ?? UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// A stored trait row's state: read directly, or by swift-protobuf when the direct reader leaves it.
    static func stored(_ bytes: [UInt8], isChange: Bool) throws -> TraitRecord {
        let direct = bytes.withUnsafeBytes { bytes in
            try? isChange ? TraitRecord(changeProtoBytes: bytes) : TraitRecord(protoBytes: bytes)
        }
        if let direct { return direct }
        return TraitRecord(
            proto: isChange
                ? try Hearth_V1_Change(serializedBytes: bytes).trait.state
                : try Hearth_V1_TraitState(serializedBytes: bytes))
    }
}

extension DeviceRecord {
    /// Reads a `hearth.v1.Device` message body (its aggregate connectivity and locality, fields 8 and 9, are
    /// read but not kept: a record derives them from the traits, as `init(proto:localID:)` does).
    init(protoBytes bytes: UnsafeRawBufferPointer, localID: String) throws(ProtoReader.Unsupported) {
        var types: [TypeInstanceRecord] = []
        let fields = try DeviceProtoFields(protoBytes: bytes) { body throws(ProtoReader.Unsupported) in
            types.append(try TypeInstanceRecord(protoBytes: body))
        }
        self.init(
            id: fields.id, driverID: fields.driverID, localID: localID, structureID: fields.structureID,
            roomID: fields.roomID, name: fields.name, isMatterDevice: fields.isMatterDevice, types: types,
            revision: fields.revision)
        if structureID?.isEmpty == true { structureID = nil }
        if roomID?.isEmpty == true { roomID = nil }
    }

    /// A stored device row: read directly, or by swift-protobuf when the direct reader leaves it.
    static func stored(_ bytes: [UInt8], localID: String) throws -> DeviceRecord {
        if let device = bytes.withUnsafeBytes({ try? DeviceRecord(protoBytes: $0, localID: localID) }) { return device }
        return DeviceRecord(proto: try Hearth_V1_Device(serializedBytes: bytes), localID: localID)
    }
}

extension TypeInstanceRecord {
    /// Reads a `hearth.v1.DeviceTypeInstance` message body.
    init(protoBytes bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
        var traits: [TraitRecord] = []
        let fields = try DeviceTypeInstanceProtoFields(protoBytes: bytes) { body throws(ProtoReader.Unsupported) in
            traits.append(try TraitRecord(protoBytes: body))
        }
        self.init(
            endpoint: fields.endpoint, deviceTypeID: DeviceTypeID(fields.deviceTypeID), primary: fields.primary,
            traits: traits)
    }
}

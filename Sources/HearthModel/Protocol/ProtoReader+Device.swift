package import HearthProto

/// A `hearth.v1.Device` message body's own fields read by ``ProtoReader``, its device types handed to the
/// caller one body at a time: the hub's cold start (into records) and HearthSDK's watch stream (into its
/// compact cache) read devices so, each keeping the types in its own form.
package struct DeviceProtoFields {
    package var id = ""
    package var driverID = ""
    package var structureID = ""
    package var roomID = ""
    package var name = ""
    package var isMatterDevice = false
    package var connectivity = Hearth_V1_ConnectivityState.unknown
    package var locality = Hearth_V1_DataSourceLocality.unspecified
    package var revision: UInt64 = 0

    /// Reads `bytes`, calling `type` with each `DeviceTypeInstance` body in order. Throws as ``ProtoReader``
    /// does (the caller then decodes the bytes with swift-protobuf), and what `type` throws.
    package init(
        protoBytes bytes: UnsafeRawBufferPointer,
        type: (UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) -> Void
    ) throws(ProtoReader.Unsupported) {
        var reader = ProtoReader(bytes)
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: id = try reader.string(wireType: wireType)
            case 2: driverID = try reader.string(wireType: wireType)
            case 3: structureID = try reader.string(wireType: wireType)
            case 4: roomID = try reader.string(wireType: wireType)
            case 5: name = try reader.string(wireType: wireType)
            case 6: isMatterDevice = try reader.varint(wireType: wireType) != 0
            case 7: try type(reader.delimited(wireType: wireType))
            case 8: connectivity = try reader.connectivity(wireType: wireType)
            case 9: locality = try reader.locality(wireType: wireType)
            case 10: revision = try reader.varint(wireType: wireType)
            default: try reader.skip(wireType: wireType)
            }
        }
    }
}

/// A `hearth.v1.DeviceTypeInstance` message body's own fields read by ``ProtoReader``, its traits handed to
/// the caller one `TraitState` body at a time (as ``DeviceProtoFields`` hands over the types).
package struct DeviceTypeInstanceProtoFields {
    package var endpoint: UInt32 = 0
    package var deviceTypeID: UInt32 = 0
    package var primary = false

    /// Reads `bytes`, calling `trait` with each `TraitState` body in order. Throws as ``ProtoReader`` does,
    /// and what `trait` throws.
    package init(
        protoBytes bytes: UnsafeRawBufferPointer,
        trait: (UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) -> Void
    ) throws(ProtoReader.Unsupported) {
        var reader = ProtoReader(bytes)
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: endpoint = UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType))
            case 2: deviceTypeID = UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType))
            case 3: primary = try reader.varint(wireType: wireType) != 0
            case 4: try trait(reader.delimited(wireType: wireType))
            default: try reader.skip(wireType: wireType)
            }
        }
    }
}

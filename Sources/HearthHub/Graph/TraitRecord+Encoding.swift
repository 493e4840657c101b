import HearthModel
import HearthProto

extension TraitRecord {
    /// The size of this state as a `hearth.v1.TraitState` message body.
    ///
    /// With ``appendState(to:)`` this encodes a report's new trait state straight into its log entry, the
    /// hub's hottest encoding: building `Attribute` and `Value` messages for swift-protobuf, whose size pass
    /// walks repeated fields through unspecialized generic code, was a third of the hub's allocations per
    /// change. The bytes are swift-protobuf's (`LogEntryTests`).
    func stateSize(sortedAttributes: [(key: AttributeID, value: Value)]) -> Int {
        var size =
            ProtoBytes.varintFieldSize(UInt64(traitID.rawValue))
            + ProtoBytes.varintFieldSize(UInt64(connectivity.proto.rawValue))
            + ProtoBytes.varintFieldSize(UInt64(locality.proto.rawValue))
            + (confirmed ? 2 : 0)
            + ProtoBytes.varintFieldSize(revision)
        for (id, value) in sortedAttributes {
            size += ProtoBytes.delimitedFieldSize(Value.idAndValueSize(id.rawValue, value))
        }
        return size
    }

    /// Appends this state as a `hearth.v1.TraitState` message body: trait_id = 1, attributes = 2 (in id
    /// order), connectivity = 3, locality = 4, confirmed = 5, revision = 6; proto3 defaults left out.
    func appendState(sortedAttributes: [(key: AttributeID, value: Value)], to out: inout [UInt8]) {
        ProtoBytes.appendVarintField(1, UInt64(traitID.rawValue), to: &out)
        for (id, value) in sortedAttributes {
            ProtoBytes.appendKey(2, ProtoBytes.lengthDelimited, to: &out)
            ProtoBytes.appendVarint(UInt64(Value.idAndValueSize(id.rawValue, value)), to: &out)
            Value.appendIDAndValue(id.rawValue, value, to: &out)
        }
        ProtoBytes.appendVarintField(3, UInt64(connectivity.proto.rawValue), to: &out)
        ProtoBytes.appendVarintField(4, UInt64(locality.proto.rawValue), to: &out)
        ProtoBytes.appendVarintField(5, confirmed ? 1 : 0, to: &out)
        ProtoBytes.appendVarintField(6, revision, to: &out)
    }
}

import HearthModel
import HearthProto

extension TraitRecord {
    /// The size of this state as a `hearth.v1.TraitState` message body.
    ///
    /// With ``appendState(to:)`` this encodes a report's new state straight from the graph into its log entry
    /// (the hub's hottest encoding; a snapshot's traits are written in one pass, without sizes). Building
    /// `Attribute` and `Value` messages for swift-protobuf, whose size pass walks repeated fields through
    /// unspecialized generic code, was a third of the hub's allocations per change. The bytes are
    /// swift-protobuf's (`LogEntryTests`, `SnapshotEncodingTests`).
    func stateSize() -> Int {
        let size =
            ProtoBytes.varintFieldSize(UInt64(traitID.rawValue))
            + ProtoBytes.varintFieldSize(UInt64(connectivity.proto.rawValue))
            + ProtoBytes.varintFieldSize(UInt64(locality.proto.rawValue))
            + (confirmed ? 2 : 0)
            + ProtoBytes.varintFieldSize(revision)
        return size + Value.attributesFieldSize(attributes)
    }

    /// Appends this state as a `hearth.v1.TraitState` message body: trait_id = 1, attributes = 2 (in id
    /// order), connectivity = 3, locality = 4, confirmed = 5, revision = 6; proto3 defaults left out.
    func appendState(to out: inout [UInt8]) {
        ProtoBytes.appendVarintField(1, UInt64(traitID.rawValue), to: &out)
        Value.appendAttributesField(2, attributes, to: &out)
        ProtoBytes.appendVarintField(3, UInt64(connectivity.proto.rawValue), to: &out)
        ProtoBytes.appendVarintField(4, UInt64(locality.proto.rawValue), to: &out)
        ProtoBytes.appendVarintField(5, confirmed ? 1 : 0, to: &out)
        ProtoBytes.appendVarintField(6, revision, to: &out)
    }
}

extension DeviceRecord {
    /// Appends this device as one change of a watch response, `WatchResponse.changes { revision, device }`,
    /// written straight from the record: the bytes swift-protobuf writes for `Change` with `device = proto`
    /// framed by ``LogEntry/frame(_:)``, without building the message tree. A snapshot is mostly this.
    func appendFramedChange(revision changeRevision: UInt64, to out: inout [UInt8]) {
        // WatchResponse.changes = 1; Change.revision = 1, Change.device = 6.
        ProtoBytes.appendDelimited(1, to: &out) { out in
            ProtoBytes.appendVarintField(1, changeRevision, to: &out)
            ProtoBytes.appendDelimited(6, to: &out) { appendDevice(to: &$0) }
        }
    }

    /// ``appendFramedChange(revision:to:)`` around a `Device` message already encoded by ``appendDevice(to:)``
    /// (``SnapshotCache``: several watchers joining at once encode each device once).
    static func appendFramedChange(
        revision changeRevision: UInt64, device: some Collection<UInt8>, to out: inout [UInt8]
    ) {
        let changeSize = ProtoBytes.varintFieldSize(changeRevision) + ProtoBytes.delimitedFieldSize(device.count)
        ProtoBytes.appendDelimitedHeader(1, length: changeSize, to: &out)
        ProtoBytes.appendVarintField(1, changeRevision, to: &out)
        ProtoBytes.appendDelimitedHeader(6, length: device.count, to: &out)
        out.append(contentsOf: device)
    }

    /// Appends this device as a `hearth.v1.Device` message body, in one pass
    /// (``ProtoBytes/appendDelimited(_:to:_:)``): sizing every trait, type and the device before writing them
    /// was a fifth of the hub's CPU while it sent a snapshot.
    func appendDevice(to out: inout [UInt8]) {
        // Device: id = 1, driver_id = 2, structure_id = 3, room_id = 4, name = 5, is_matter_device = 6,
        // types = 7, connectivity = 8, locality = 9, revision = 10.
        ProtoBytes.appendStringField(1, id, to: &out)
        ProtoBytes.appendStringField(2, driverID, to: &out)
        ProtoBytes.appendStringField(3, structureID ?? "", to: &out)
        ProtoBytes.appendStringField(4, roomID ?? "", to: &out)
        ProtoBytes.appendStringField(5, name, to: &out)
        ProtoBytes.appendVarintField(6, isMatterDevice ? 1 : 0, to: &out)
        for type in types {
            ProtoBytes.appendDelimited(7, to: &out) { out in
                // DeviceTypeInstance: endpoint = 1, device_type_id = 2, primary = 3, traits = 4.
                ProtoBytes.appendVarintField(1, UInt64(type.endpoint), to: &out)
                ProtoBytes.appendVarintField(2, UInt64(type.deviceTypeID.rawValue), to: &out)
                ProtoBytes.appendVarintField(3, type.primary ? 1 : 0, to: &out)
                for trait in type.traits {
                    ProtoBytes.appendDelimited(4, to: &out) { trait.appendState(to: &$0) }
                }
            }
        }
        let aggregate = sourceConnectivity
        ProtoBytes.appendVarintField(8, UInt64(aggregate.connectivityState.proto.rawValue), to: &out)
        ProtoBytes.appendVarintField(9, UInt64(aggregate.dataSourceLocality.proto.rawValue), to: &out)
        ProtoBytes.appendVarintField(10, revision, to: &out)
    }
}

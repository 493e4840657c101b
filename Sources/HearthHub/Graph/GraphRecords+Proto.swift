public import HearthModel
public import HearthProto

extension StructureRecord {
    public var proto: Hearth_V1_Structure {
        var out = Hearth_V1_Structure()
        out.id = id
        out.name = name
        out.revision = revision
        return out
    }

    init(proto: Hearth_V1_Structure) {
        self.init(id: proto.id, name: proto.name, revision: proto.revision)
    }
}

extension RoomRecord {
    public var proto: Hearth_V1_Room {
        var out = Hearth_V1_Room()
        out.id = id
        out.structureID = structureID
        out.name = name
        out.revision = revision
        return out
    }

    init(proto: Hearth_V1_Room) {
        self.init(id: proto.id, structureID: proto.structureID, name: proto.name, revision: proto.revision)
    }
}

extension TraitRecord {
    public var proto: Hearth_V1_TraitState {
        var out = Hearth_V1_TraitState()
        out.traitID = traitID.rawValue
        out.attributes = Self.protoAttributes(attributes)
        out.connectivity = connectivity.proto
        out.locality = locality.proto
        out.confirmed = confirmed
        out.revision = revision
        return out
    }

    init(proto: Hearth_V1_TraitState) {
        self.init(
            traitID: TraitID(proto.traitID), attributes: Self.attributes(proto.attributes),
            connectivity: ConnectivityState(proto: proto.connectivity),
            locality: DataSourceLocality(proto: proto.locality), confirmed: proto.confirmed,
            revision: proto.revision)
    }

    /// Attributes on the wire, in ascending id order.
    public static func protoAttributes(_ attributes: [AttributeID: Value]) -> [Hearth_V1_Attribute] {
        attributes.sorted { $0.key < $1.key }.map { id, value in
            var attribute = Hearth_V1_Attribute()
            attribute.id = id.rawValue
            attribute.value = value.proto
            return attribute
        }
    }

    /// Attributes from the wire; a later duplicate id wins.
    public static func attributes(_ proto: [Hearth_V1_Attribute]) -> [AttributeID: Value] {
        var out: [AttributeID: Value] = [:]
        for attribute in proto { out[AttributeID(attribute.id)] = Value(proto: attribute.value) }
        return out
    }
}

extension DeviceRecord {
    public var proto: Hearth_V1_Device {
        var out = Hearth_V1_Device()
        out.id = id
        out.driverID = driverID
        out.structureID = structureID ?? ""
        out.roomID = roomID ?? ""
        out.name = name
        out.isMatterDevice = isMatterDevice
        out.types = types.map { instance in
            var type = Hearth_V1_DeviceTypeInstance()
            type.endpoint = instance.endpoint
            type.deviceTypeID = instance.deviceTypeID.rawValue
            type.primary = instance.primary
            type.traits = instance.traits.map(\.proto)
            return type
        }
        let aggregate = sourceConnectivity
        out.connectivity = aggregate.connectivityState.proto
        out.locality = aggregate.dataSourceLocality.proto
        out.revision = revision
        return out
    }

    init(proto: Hearth_V1_Device, localID: String) {
        self.init(
            id: proto.id, driverID: proto.driverID, localID: localID,
            structureID: proto.structureID.isEmpty ? nil : proto.structureID,
            roomID: proto.roomID.isEmpty ? nil : proto.roomID, name: proto.name,
            isMatterDevice: proto.isMatterDevice,
            types: proto.types.map { type in
                TypeInstanceRecord(
                    endpoint: type.endpoint, deviceTypeID: DeviceTypeID(type.deviceTypeID), primary: type.primary,
                    traits: type.traits.map(TraitRecord.init(proto:)))
            },
            revision: proto.revision)
    }
}

import Foundation
public import HearthProto

extension Value {
    /// The value as it travels on the wire.
    public var proto: Hearth_V1_Value {
        var out = Hearth_V1_Value()
        switch self {
        case .bool(let v): out.kind = .boolValue(v)
        case .int(let v): out.kind = .intValue(v)
        case .uint(let v): out.kind = .uintValue(v)
        case .double(let v): out.kind = .doubleValue(v)
        case .string(let v): out.kind = .stringValue(v)
        case .bytes(let v): out.kind = .bytesValue(.init(v))
        case .list(let values):
            var list = Hearth_V1_ListValue()
            list.values = values.map(\.proto)
            out.kind = .listValue(list)
        case .struct(let fields): out.kind = .structValue(Self.protoStruct(fields))
        case .enum(let v): out.kind = .enumValue(v)
        case .null: out.kind = .nullValue(.nullValue)
        }
        return out
    }

    /// A wire value; an unset one is null.
    public init(proto: Hearth_V1_Value) {
        switch proto.kind {
        case .boolValue(let v): self = .bool(v)
        case .intValue(let v): self = .int(v)
        case .uintValue(let v): self = .uint(v)
        case .doubleValue(let v): self = .double(v)
        case .stringValue(let v): self = .string(v)
        case .bytesValue(let v): self = .bytes(Array(v))
        case .listValue(let list): self = .list(list.values.map(Value.init(proto:)))
        case .structValue(let s): self = .struct(Self.fields(of: s))
        case .enumValue(let v): self = .enum(v)
        case .nullValue, nil: self = .null
        }
    }

    /// A struct's fields on the wire, in ascending id order.
    public static func protoStruct(_ fields: [FieldID: Value]) -> Hearth_V1_StructValue {
        var out = Hearth_V1_StructValue()
        out.fields = fields.sorted { $0.key < $1.key }.map { id, value in
            var field = Hearth_V1_Field()
            field.id = id.rawValue
            field.value = value.proto
            return field
        }
        return out
    }

    /// The fields of a wire struct; a later duplicate id wins.
    public static func fields(of proto: Hearth_V1_StructValue) -> [FieldID: Value] {
        var fields: [FieldID: Value] = [:]
        for field in proto.fields { fields[FieldID(field.id)] = Value(proto: field.value) }
        return fields
    }
}

extension ConnectivityState {
    public var proto: Hearth_V1_ConnectivityState {
        switch self {
        case .online: .online
        case .offline: .offline
        case .partiallyOnline: .partiallyOnline
        case .unknown: .unknown
        }
    }

    public init(proto: Hearth_V1_ConnectivityState) {
        switch proto {
        case .online: self = .online
        case .offline: self = .offline
        case .partiallyOnline: self = .partiallyOnline
        case .unknown, .UNRECOGNIZED: self = .unknown
        }
    }
}

extension DataSourceLocality {
    public var proto: Hearth_V1_DataSourceLocality {
        switch self {
        case .local: .local
        case .remote: .remote
        case .peerToPeer: .peerToPeer
        case .mixed: .mixed
        case .unspecified: .unspecified
        }
    }

    public init(proto: Hearth_V1_DataSourceLocality) {
        switch proto {
        case .local: self = .local
        case .remote: self = .remote
        case .peerToPeer: self = .peerToPeer
        case .mixed: self = .mixed
        case .unspecified, .UNRECOGNIZED: self = .unspecified
        }
    }
}

/// `Value` encodes as an object with one key naming its case: `{"uint": 5}`, `{"null": true}`,
/// `{"struct": {"0": {"bool": true}}}`. Struct field ids become decimal string keys so that any JSON reader
/// can handle them.
extension Value: Codable {
    private enum CodingKeys: String, CodingKey {
        case bool, int, uint, double, string, bytes, list, `struct`, `enum`, null
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a Value has exactly one key naming its kind")
            )
        }
        switch key {
        case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
        case .int: self = .int(try container.decode(Int64.self, forKey: key))
        case .uint: self = .uint(try container.decode(UInt64.self, forKey: key))
        case .double: self = .double(try container.decode(Double.self, forKey: key))
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .bytes: self = .bytes(try container.decode([UInt8].self, forKey: key))
        case .list: self = .list(try container.decode([Value].self, forKey: key))
        case .enum: self = .enum(try container.decode(UInt32.self, forKey: key))
        case .null: self = .null
        case .struct:
            let raw = try container.decode([String: Value].self, forKey: key)
            var fields: [FieldID: Value] = [:]
            for (name, value) in raw {
                guard let id = UInt32(name) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: container, debugDescription: "struct field key '\(name)' is not a number")
                }
                fields[FieldID(id)] = value
            }
            self = .struct(fields)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .bool(let v): try container.encode(v, forKey: .bool)
        case .int(let v): try container.encode(v, forKey: .int)
        case .uint(let v): try container.encode(v, forKey: .uint)
        case .double(let v): try container.encode(v, forKey: .double)
        case .string(let v): try container.encode(v, forKey: .string)
        case .bytes(let v): try container.encode(v, forKey: .bytes)
        case .list(let v): try container.encode(v, forKey: .list)
        case .enum(let v): try container.encode(v, forKey: .enum)
        case .null: try container.encode(true, forKey: .null)
        case .struct(let fields):
            var raw: [String: Value] = [:]
            for (id, value) in fields { raw[String(id.rawValue)] = value }
            try container.encode(raw, forKey: .struct)
        }
    }
}

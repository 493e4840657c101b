/// A generic, self-describing value: what attributes, command fields and event fields hold on the wire.
///
/// The catalog gives a value its meaning (which integer width, which enum, which struct); a `Value` alone only
/// says its shape. Structs are keyed by numeric field id, as in Matter. `Value` is the currency between the
/// protocol, the hub's validator and the typed API.
///
/// ```swift
/// let args: Value = .struct([0: .uint(128), 1: .null, 2: .uint(0), 3: .uint(0)])
/// ```
public enum Value: Hashable, Sendable {
    /// A boolean.
    case bool(Bool)
    /// A signed integer of any Matter width.
    case int(Int64)
    /// An unsigned integer of any Matter width; also bitmaps.
    case uint(UInt64)
    /// A floating-point number.
    case double(Double)
    /// A UTF-8 string.
    case string(String)
    /// An octet string.
    case bytes([UInt8])
    /// A list of values of one type.
    case list([Value])
    /// A struct: fields by numeric id.
    case `struct`([FieldID: Value])
    /// An enum value, by its raw number.
    case `enum`(UInt32)
    /// The null of a nullable attribute or field.
    case null
}

extension Value {
    /// A short name of the value's shape, used in error messages ("uint", "struct").
    public var kindName: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .uint: "uint"
        case .double: "double"
        case .string: "string"
        case .bytes: "bytes"
        case .list: "list"
        case .struct: "struct"
        case .enum: "enum"
        case .null: "null"
        }
    }

    /// The value as a signed 64-bit integer if it is an integer or enum that fits, else nil.
    public var integerValue: Int64? {
        switch self {
        case .int(let v): v
        case .uint(let v): v <= UInt64(Int64.max) ? Int64(v) : nil
        case .enum(let v): Int64(v)
        default: nil
        }
    }

    /// The value as an unsigned 64-bit integer if it is a non-negative integer or an enum, else nil.
    public var unsignedValue: UInt64? {
        switch self {
        case .uint(let v): v
        case .int(let v): v >= 0 ? UInt64(v) : nil
        case .enum(let v): UInt64(v)
        default: nil
        }
    }

    /// The fields if the value is a struct, else nil.
    public var structFields: [FieldID: Value]? {
        if case .struct(let fields) = self { return fields }
        return nil
    }

    /// The elements if the value is a list, else nil.
    public var listElements: [Value]? {
        if case .list(let elements) = self { return elements }
        return nil
    }

    /// A struct field by id, or nil when absent or when the value is not a struct.
    public subscript(field id: FieldID) -> Value? {
        structFields?[id]
    }
}

extension Value: CustomStringConvertible {
    public var description: String {
        switch self {
        case .bool(let v): String(v)
        case .int(let v): String(v)
        case .uint(let v): String(v)
        case .double(let v): String(v)
        case .string(let v): "\"\(v)\""
        case .bytes(let v): "bytes(\(v.count))"
        case .list(let v): "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .struct(let fields):
            "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .enum(let v): "enum(\(v))"
        case .null: "null"
        }
    }
}

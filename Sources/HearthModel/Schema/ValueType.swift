/// The type the catalog gives a value.
///
/// Integer types keep their Matter width so the validator can check the range. Enums, bitmaps and structs are
/// named; the names resolve within the trait that declares them. Encodes as a string such as `"uint16"`,
/// `"enum:StartUpOnOffEnum"` or `"list:struct:DeviceTypeStruct"` (the catalog's TOML spelling).
public indirect enum ValueType: Hashable, Sendable {
    case bool
    /// A signed integer of 8, 16, 32 or 64 bits.
    case int(bits: Int)
    /// An unsigned integer of 8, 16, 32 or 64 bits.
    case uint(bits: Int)
    case double
    case string
    case bytes
    /// An enum declared in the trait, by name.
    case `enum`(String)
    /// A bitmap declared in the trait, by name.
    case bitmap(String)
    /// A struct declared in the trait, by name.
    case `struct`(String)
    case list(ValueType)

    /// Parses the catalog spelling; nil when it is not a type.
    public init?(spelling: String) {
        switch spelling {
        case "bool": self = .bool
        case "double": self = .double
        case "string": self = .string
        case "bytes": self = .bytes
        case "int8", "int16", "int32", "int64": self = .int(bits: Int(spelling.dropFirst(3))!)
        case "uint8", "uint16", "uint32", "uint64": self = .uint(bits: Int(spelling.dropFirst(4))!)
        default:
            guard let colon = spelling.firstIndex(of: ":") else { return nil }
            let kind = spelling[..<colon]
            let rest = String(spelling[spelling.index(after: colon)...])
            switch kind {
            case "enum" where !rest.isEmpty: self = .enum(rest)
            case "bitmap" where !rest.isEmpty: self = .bitmap(rest)
            case "struct" where !rest.isEmpty: self = .struct(rest)
            case "list":
                guard let element = ValueType(spelling: rest) else { return nil }
                self = .list(element)
            default: return nil
            }
        }
    }

    /// The catalog spelling.
    public var spelling: String {
        switch self {
        case .bool: "bool"
        case .int(let bits): "int\(bits)"
        case .uint(let bits): "uint\(bits)"
        case .double: "double"
        case .string: "string"
        case .bytes: "bytes"
        case .enum(let name): "enum:\(name)"
        case .bitmap(let name): "bitmap:\(name)"
        case .struct(let name): "struct:\(name)"
        case .list(let element): "list:\(element.spelling)"
        }
    }
}

extension ValueType: Codable {
    public init(from decoder: any Decoder) throws {
        let spelling = try String(from: decoder)
        guard let type = ValueType(spelling: spelling) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(spelling)' is not a value type"))
        }
        self = type
    }

    public func encode(to encoder: any Encoder) throws { try spelling.encode(to: encoder) }
}

extension ValueType: CustomStringConvertible {
    public var description: String { spelling }
}

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

    /// The most `list:` levels a spelling may have, whatever the configured ``InputLimits``: every function
    /// on a type recurses through its lists, so this keeps them all shallow. Deeper spellings are not types.
    public static let maxListNesting = 32

    /// Parses the catalog spelling; nil when it is not a type (including one nesting more than
    /// ``maxListNesting`` lists). Iterative: the input may come from a driver.
    public init?(spelling: String) {
        var rest = Substring(spelling)
        var lists = 0
        while rest.hasPrefix("list:") {
            lists += 1
            guard lists <= Self.maxListNesting else { return nil }
            rest = rest.dropFirst(5)
        }
        guard var type = Self.scalar(rest) else { return nil }
        for _ in 0..<lists { type = .list(type) }
        self = type
    }

    /// A spelling without `list:`.
    private static func scalar(_ spelling: Substring) -> ValueType? {
        switch spelling {
        case "bool": return .bool
        case "double": return .double
        case "string": return .string
        case "bytes": return .bytes
        case "int8", "int16", "int32", "int64": return .int(bits: Int(spelling.dropFirst(3))!)
        case "uint8", "uint16", "uint32", "uint64": return .uint(bits: Int(spelling.dropFirst(4))!)
        default:
            guard let colon = spelling.firstIndex(of: ":") else { return nil }
            let kind = spelling[..<colon]
            let name = String(spelling[spelling.index(after: colon)...])
            guard !name.isEmpty else { return nil }
            switch kind {
            case "enum": return .enum(name)
            case "bitmap": return .bitmap(name)
            case "struct": return .struct(name)
            default: return nil
            }
        }
    }

    /// How many `list:` levels the type has.
    public var listNesting: Int {
        var count = 0
        var type = self
        while case .list(let element) = type {
            count += 1
            type = element
        }
        return count
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
            // The spelling may be a peer's 500 KB: quote only its start.
            let shown = spelling.count > 80 ? spelling.prefix(80) + "…" : Substring(spelling)
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "'\(shown)' is not a value type (at most \(Self.maxListNesting) list: levels)"))
        }
        self = type
    }

    public func encode(to encoder: any Encoder) throws { try spelling.encode(to: encoder) }
}

extension ValueType: CustomStringConvertible {
    public var description: String { spelling }
}

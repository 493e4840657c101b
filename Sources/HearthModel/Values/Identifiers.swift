/// A numeric identifier: a `UInt32` with its own type, so ids of different kinds cannot be mixed.
///
/// Matter gives clusters, attributes, commands, events, struct fields and device types 32-bit ids; the upper
/// 16 bits of a manufacturer-specific id carry the vendor id. Conforming types declare only their storage and
/// how they print; everything else comes from this protocol.
public protocol NumericIdentifier: RawRepresentable<UInt32>, Hashable, Sendable, Comparable, Codable,
    ExpressibleByIntegerLiteral, CustomStringConvertible
{
    init(rawValue: UInt32)
    /// Hex digits to pad to when printed (`0x0006`); nil prints decimal.
    static var hexWidth: Int? { get }
}

extension NumericIdentifier {
    public init(_ rawValue: UInt32) { self.init(rawValue: rawValue) }
    public init(integerLiteral value: UInt32) { self.init(rawValue: value) }
    public init(from decoder: any Decoder) throws { self.init(rawValue: try UInt32(from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { Self.hexWidth.map { hex(rawValue, width: $0) } ?? String(rawValue) }
}

/// The id of a trait (a Matter cluster id, or a manufacturer-specific one for platform and vendor traits).
public struct TraitID: NumericIdentifier {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let hexWidth: Int? = 4
}

/// The id of an attribute within its trait.
public struct AttributeID: NumericIdentifier {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let hexWidth: Int? = 4
}

/// The id of a command (or a command response) within its trait.
public struct CommandID: NumericIdentifier {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let hexWidth: Int? = 2
}

/// The id of an event within its trait.
public struct EventID: NumericIdentifier {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let hexWidth: Int? = 2
}

/// The id of a field within a struct, a command's arguments or an event's payload.
public struct FieldID: NumericIdentifier {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let hexWidth: Int? = nil
}

/// The id of a device type (a Matter device type id, or a manufacturer-specific one).
public struct DeviceTypeID: NumericIdentifier {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let hexWidth: Int? = 4
}

/// Formats an id as `0x` and upper-case hex digits, padded to `width`.
func hex(_ value: UInt32, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

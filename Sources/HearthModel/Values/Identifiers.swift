/// Declares a numeric identifier type: a `UInt32` with its own type so ids of different kinds cannot be mixed.
///
/// Matter gives clusters, attributes, commands, events, struct fields and device types 32-bit ids; the upper
/// 16 bits of a manufacturer-specific id carry the vendor id.

/// The id of a trait (a Matter cluster id, or a manufacturer-specific one for platform and vendor traits).
public struct TraitID: RawRepresentable, Hashable, Sendable, Comparable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public init(from decoder: any Decoder) throws { self.rawValue = try UInt32(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { hex(rawValue, width: 4) }
}

/// The id of an attribute within its trait.
public struct AttributeID: RawRepresentable, Hashable, Sendable, Comparable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public init(from decoder: any Decoder) throws { self.rawValue = try UInt32(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { hex(rawValue, width: 4) }
}

/// The id of a command (or a command response) within its trait.
public struct CommandID: RawRepresentable, Hashable, Sendable, Comparable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public init(from decoder: any Decoder) throws { self.rawValue = try UInt32(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { hex(rawValue, width: 2) }
}

/// The id of an event within its trait.
public struct EventID: RawRepresentable, Hashable, Sendable, Comparable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public init(from decoder: any Decoder) throws { self.rawValue = try UInt32(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { hex(rawValue, width: 2) }
}

/// The id of a field within a struct, a command's arguments or an event's payload.
public struct FieldID: RawRepresentable, Hashable, Sendable, Comparable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public init(from decoder: any Decoder) throws { self.rawValue = try UInt32(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// The id of a device type (a Matter device type id, or a manufacturer-specific one).
public struct DeviceTypeID: RawRepresentable, Hashable, Sendable, Comparable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public init(from decoder: any Decoder) throws { self.rawValue = try UInt32(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { hex(rawValue, width: 4) }
}

/// Formats an id as `0x` and upper-case hex digits, padded to `width`.
func hex(_ value: UInt32, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

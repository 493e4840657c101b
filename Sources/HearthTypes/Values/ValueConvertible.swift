public import HearthModel

/// A Swift type with a ``HearthModel/Value`` form: scalars, and the generated enums, bitmaps and structs.
public protocol ValueConvertible: Sendable {
    /// Reads the Swift value from a generic value; nil when the shape or range does not fit.
    init?(value: Value)
    /// The generic value.
    var value: Value { get }
}

extension Bool: ValueConvertible {
    public init?(value: Value) {
        guard case .bool(let b) = value else { return nil }
        self = b
    }
    public var value: Value { .bool(self) }
}

extension String: ValueConvertible {
    public init?(value: Value) {
        guard case .string(let s) = value else { return nil }
        self = s
    }
    public var value: Value { .string(self) }
}

extension Double: ValueConvertible {
    public init?(value: Value) {
        switch value {
        case .double(let d): self = d
        case .int(let i): self = Double(i)
        case .uint(let u): self = Double(u)
        default: return nil
        }
    }
    public var value: Value { .double(self) }
}

extension ValueConvertible where Self: FixedWidthInteger & UnsignedInteger {
    public init?(value: Value) {
        switch value {
        case .uint(let u):
            guard let fitted = Self(exactly: u) else { return nil }
            self = fitted
        case .int(let i):
            guard let fitted = Self(exactly: i) else { return nil }
            self = fitted
        default: return nil
        }
    }
    public var value: Value { .uint(UInt64(self)) }
}

extension ValueConvertible where Self: FixedWidthInteger & SignedInteger {
    public init?(value: Value) {
        switch value {
        case .int(let i):
            guard let fitted = Self(exactly: i) else { return nil }
            self = fitted
        case .uint(let u):
            guard let fitted = Self(exactly: u) else { return nil }
            self = fitted
        default: return nil
        }
    }
    public var value: Value { .int(Int64(self)) }
}

extension UInt8: ValueConvertible {}
extension UInt16: ValueConvertible {}
extension UInt32: ValueConvertible {}
extension UInt64: ValueConvertible {}
extension Int8: ValueConvertible {}
extension Int16: ValueConvertible {}
extension Int32: ValueConvertible {}
extension Int64: ValueConvertible {}

extension ValueConvertible where Self: RawRepresentable, RawValue == UInt32 {
    /// Generated enums read `.enum` (or an integer) and refuse raw values they do not declare.
    public init?(value: Value) {
        guard let raw = value.unsignedValue, let fitted = UInt32(exactly: raw) else { return nil }
        self.init(rawValue: fitted)
    }
    public var value: Value { .enum(rawValue) }
}

extension ValueConvertible where Self: OptionSet, RawValue == UInt32 {
    /// Generated bitmaps read an unsigned integer; reserved bits are kept.
    public init?(value: Value) {
        switch value {
        case .uint, .int:
            guard let raw = value.unsignedValue, let fitted = UInt32(exactly: raw) else { return nil }
            self.init(rawValue: fitted)
        default: return nil
        }
    }
    public var value: Value { .uint(UInt64(rawValue)) }
}

extension Value {
    /// The bytes of an octet string, else nil.
    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    /// The elements of a list, each decoded; nil when the value is not a list or any element fails.
    public func decodeList<T>(_ decode: (Value) -> T?) -> [T]? {
        guard case .list(let elements) = self else { return nil }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let decoded = decode(element) else { return nil }
            result.append(decoded)
        }
        return result
    }
}

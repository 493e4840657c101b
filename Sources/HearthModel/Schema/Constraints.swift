/// Limits on a value beyond its type.
///
/// `minimum`/`maximum` bound numbers; `allowed` lists the only numbers accepted (such as image rotation 0 or
/// 180); `minLength`/`maxLength` bound the UTF-8 byte count of strings, the byte count of octet strings and the
/// element count of lists. Unsigned limits above `Int64.max` cannot be expressed (none are needed).
public struct Constraints: Hashable, Sendable, Codable {
    public var minimum: Int64?
    public var maximum: Int64?
    public var allowed: [Int64]?
    public var minLength: Int?
    public var maxLength: Int?

    public init(
        minimum: Int64? = nil, maximum: Int64? = nil, allowed: [Int64]? = nil,
        minLength: Int? = nil, maxLength: Int? = nil
    ) {
        self.minimum = minimum
        self.maximum = maximum
        self.allowed = allowed
        self.minLength = minLength
        self.maxLength = maxLength
    }

    /// No constraint.
    public static let none = Constraints()
}

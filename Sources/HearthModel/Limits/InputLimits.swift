import Foundation

/// Limits on what a client or a driver may send for the hub to parse, checked before the work they bound.
///
/// Every parser of untrusted data in Hearth is iterative or bounded by one of these, so that no message can
/// exhaust the stack or the heap: a schema nested 100,000 lists deep is refused in microseconds with a
/// message naming the limit, instead of recursing until the process dies. `Docs/Security.md` lists them.
public struct InputLimits: Sendable, Hashable {
    /// Bytes of one vendor trait schema's JSON. Default 256 KiB.
    public var maxSchemaBytes = 256 * 1024
    /// Nesting of arrays and objects in JSON from a peer (vendor schemas and their default values).
    /// Default 32.
    public var maxJSONDepth = 32
    /// `list:` levels in a value type (`list:list:uint8` is 2). Default 4; Matter uses at most 1.
    /// Values on the wire are bounded apart from this: protobuf decoding stops at
    /// `MessageCodec.protobufDepthLimit` nested messages.
    public var maxTypeNesting = 4

    public init() {}

    /// The defaults, as documented on each field.
    public static var defaults: InputLimits { InputLimits() }
}

/// A peer's input broke one of the ``InputLimits``.
public struct InputLimitError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Names the limit and its value, never echoes the input.
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

extension InputLimits {
    /// Checks JSON bytes for size and nesting in one pass without recursion, before any decoder sees them.
    /// Brackets inside strings (with escapes) are skipped; anything else malformed is left to the decoder.
    /// - Throws: ``InputLimitError`` naming the limit that was crossed.
    public func checkJSON(_ bytes: some Collection<UInt8>) throws(InputLimitError) {
        guard bytes.count <= maxSchemaBytes else {
            throw InputLimitError("JSON of \(bytes.count) bytes exceeds the limit of \(maxSchemaBytes) bytes")
        }
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maxJSONDepth {
                    throw InputLimitError("JSON nests arrays and objects deeper than the limit of \(maxJSONDepth)")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
    }

    /// Checks that a type nests lists no deeper than ``maxTypeNesting``.
    /// - Throws: ``InputLimitError`` naming the limit.
    public func checkNesting(of type: ValueType) throws(InputLimitError) {
        guard type.listNesting <= maxTypeNesting else {
            throw InputLimitError("a value type nests \(type.listNesting) lists, more than the limit of \(maxTypeNesting)")
        }
    }
}

extension InputLimits {
    /// Decodes a vendor trait schema from a peer's JSON: size and nesting checked first, then decoded, then
    /// every type in it checked against ``maxTypeNesting``.
    /// - Throws: ``InputLimitError`` for a crossed limit; `DecodingError` when the JSON is not a schema.
    public func decodeSchema(json: String) throws -> TraitSchema {
        let bytes = Array(json.utf8)
        try checkJSON(bytes)
        let schema = try JSONDecoder().decode(TraitSchema.self, from: Data(bytes))
        let fieldTypes = (schema.structs.map(\.fields) + schema.commands.map(\.fields)
            + schema.responses.map(\.fields) + schema.events.map(\.fields)).joined().map(\.type)
        for type in schema.attributes.map(\.type) + fieldTypes { try checkNesting(of: type) }
        return schema
    }
}

/// Ordered gRPC metadata: custom request headers, response headers or trailers.
///
/// Keys are lower-case ASCII. Keys ending in `-bin` hold binary values, which
/// travel base64-encoded; all others hold printable ASCII strings. Keys may
/// repeat.
public struct Metadata: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// One metadata value.
    public enum Value: Sendable, Hashable {
        case string(String)
        case binary([UInt8])
    }

    /// The entries in order.
    public private(set) var entries: [(key: String, value: Value)]

    /// Empty metadata.
    public init() { entries = [] }

    public init(dictionaryLiteral elements: (String, Value)...) {
        entries = elements.map { (key: $0.0.lowercased(), value: $0.1) }
    }

    /// Appends a string value.
    public mutating func add(_ key: String, _ value: String) {
        entries.append((key: key.lowercased(), value: .string(value)))
    }

    /// Appends a binary value; `key` must end in `-bin`.
    public mutating func add(_ key: String, binary value: [UInt8]) {
        entries.append((key: key.lowercased(), value: .binary(value)))
    }

    /// The first value for `key`, if any.
    public subscript(key: String) -> Value? {
        let key = key.lowercased()
        return entries.first { $0.key == key }?.value
    }

    /// The first string value for `key`, if any.
    public func string(for key: String) -> String? {
        if case .string(let s) = self[key] { return s }
        return nil
    }

    /// The number of entries.
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public func makeIterator() -> IndexingIterator<[(key: String, value: Value)]> {
        entries.makeIterator()
    }

    public static func == (lhs: Metadata, rhs: Metadata) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.key)
            hasher.combine(entry.value)
        }
    }
}

extension Metadata {
    /// Header names gRPC or HTTP/2 reserve; they never appear as metadata.
    static func isReserved(_ name: String) -> Bool {
        name.hasPrefix(":") || name.hasPrefix("grpc-") || name == "content-type" || name == "te"
            || name == "user-agent" || name == "content-length" || name == "connection"
    }

    /// Adds a header received from the wire, decoding `-bin` values.
    /// - Returns: false if a `-bin` value is not valid base64.
    mutating func addWire(name: String, value: String) -> Bool {
        if name.hasSuffix("-bin") {
            guard let bytes = Base64.decode(value) else { return false }
            entries.append((key: name, value: .binary(bytes)))
        } else {
            entries.append((key: name, value: .string(value)))
        }
        return true
    }

    /// The entries as wire headers, binary values base64-encoded unpadded.
    var wireHeaders: [(String, String)] {
        var headers: [(String, String)] = []
        appendWireHeaders(to: &headers)
        return headers
    }

    /// Appends the entries as HTTP/2 header fields, without an array of their own.
    func appendWireHeaders(to headers: inout [(String, String)]) {
        for entry in entries {
            switch entry.value {
            case .string(let s): headers.append((entry.key, s))
            case .binary(let b): headers.append((entry.key, Base64.encode(b)))
            }
        }
    }
}

extension Metadata {
    /// Appends an entry as it is.
    public mutating func append(_ entry: (key: String, value: Value)) {
        entries.append((key: entry.key.lowercased(), value: entry.value))
    }
}

/// A gRPC message encoding, as named in the `grpc-encoding` and `grpc-accept-encoding` headers: how the
/// bytes of a message whose compressed flag is set are packed.
///
/// HearthWire supports `gzip` (RFC 1952) and `deflate` (the zlib format of RFC 1950, as gRPC means it).
/// No encoding (`identity`) is `nil` wherever an encoding is optional.
///
/// ```swift
/// let reply = try await client.unary(method, request: request, options: CallOptions(compression: .gzip))
/// ```
public struct MessageEncoding: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case gzip
        case deflate
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// gzip: deflate data with the gzip header and CRC-32 trailer.
    public static let gzip = MessageEncoding(.gzip)
    /// deflate: deflate data in the zlib wrapper (RFC 1950), which is what gRPC's `deflate` is on the wire.
    public static let deflate = MessageEncoding(.deflate)

    /// Every encoding HearthWire can compress and decompress.
    public static let all: [MessageEncoding] = [.gzip, .deflate]

    /// The encoding a header names, or nil for an unknown name (and for `identity`, which is no encoding).
    /// Names are matched case-insensitively.
    public init?(name: String) {
        switch name.lowercased() {
        case "gzip": self = .gzip
        case "deflate": self = .deflate
        default: return nil
        }
    }

    /// The name in `grpc-encoding`: `gzip` or `deflate`.
    public var name: String {
        switch kind {
        case .gzip: "gzip"
        case .deflate: "deflate"
        }
    }

    public var description: String { name }

    /// zlib's windowBits for this format: 15 (32 KiB window), plus 16 for the gzip wrapper.
    var zlibWindowBits: Int32 {
        switch kind {
        case .gzip: 15 + 16
        case .deflate: 15
        }
    }
}

extension MessageEncoding {
    /// The value of `grpc-accept-encoding` for these encodings: `identity` first, then each name.
    static func acceptHeader(_ encodings: [MessageEncoding]) -> String {
        (["identity"] + encodings.map(\.name)).joined(separator: ",")
    }

    /// The known encodings a `grpc-accept-encoding` value lists (unknown names and `identity` dropped).
    ///
    /// Read from the value's bytes: every request carries this header, and splitting and trimming it as
    /// strings (Foundation's trimming, a `String` per name, `lowercased()`) cost about a twentieth of the
    /// hub's CPU per command.
    static func parseAcceptHeader(_ value: String) -> [MessageEncoding] {
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var found: [MessageEncoding] = []
        for name in value.utf8.split(separator: UInt8(ascii: ",")) {
            guard let first = name.firstIndex(where: { !isBlank($0) }), let last = name.lastIndex(where: { !isBlank($0) })
            else { continue }
            // The names are ASCII letters: setting 0x20 lowers a capital and leaves a small letter alone.
            guard let known = all.first(where: { name[first...last].elementsEqual($0.name.utf8) { $0 | 0x20 == $1 } }),
                !found.contains(known)
            else { continue }
            found.append(known)
        }
        return found
    }
}

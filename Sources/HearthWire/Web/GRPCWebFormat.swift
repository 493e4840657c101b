internal import NIOCore

/// The two body formats of gRPC-Web (grpc/grpc `doc/PROTOCOL-WEB.md`).
///
/// Both carry ordinary gRPC message frames; the call's status and trailers travel in the body as a last frame
/// whose flag byte has its top bit set, because browsers cannot read HTTP trailers. `text` base64-encodes the
/// whole body in both directions, for clients that can only handle text.
enum GRPCWebFormat: Equatable, Sendable {
    /// `application/grpc-web` and `application/grpc-web+proto`.
    case binary
    /// `application/grpc-web-text` and `application/grpc-web-text+proto`.
    case text

    /// The format a request's `content-type` names, or nil for anything that is not gRPC-Web.
    init?(contentType: String) {
        let lowered = contentType.lowercased()
        let text = "application/grpc-web-text"
        let binary = "application/grpc-web"
        func follows(_ prefix: String) -> Bool {
            guard lowered.hasPrefix(prefix) else { return false }
            let rest = lowered.dropFirst(prefix.count)
            return rest.isEmpty || rest == "+proto" || rest.hasPrefix(";") || rest.hasPrefix("+proto;")
        }
        if follows(text) {
            self = .text
        } else if follows(binary) {
            self = .binary
        } else {
            return nil
        }
    }

    /// The response's `content-type`.
    var responseContentType: String {
        switch self {
        case .binary: "application/grpc-web+proto"
        case .text: "application/grpc-web-text+proto"
        }
    }

    /// The flag byte of the trailer frame: an uncompressed frame with the trailer bit (0x80).
    static let trailerFlag: UInt8 = 0x80

    /// The trailer frame that ends a gRPC-Web response body: the status and trailing metadata as HTTP/1-style
    /// header lines (`name:value\r\n`, names lower-case) behind a five-byte prefix.
    static func trailerFrame(_ status: Status, trailers: Metadata = [:]) -> [UInt8] {
        var block = ""
        for (name, value) in ServerConnectionHandler.statusHeaders(status, trailers: trailers) {
            block += name.lowercased()
            block += ":"
            block += value
            block += "\r\n"
        }
        let length = UInt32(block.utf8.count)
        var frame: [UInt8] = [
            trailerFlag, UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16),
            UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
        ]
        frame.append(contentsOf: block.utf8)
        return frame
    }
}

/// Whether a server compresses a call's responses when its handler does not choose.
///
/// A response is only ever compressed with an encoding that the server enables
/// (``ConnectionConfiguration/Compression/enabledEncodings``) and that the client lists in its
/// `grpc-accept-encoding`; otherwise it goes uncompressed, whatever the policy.
public struct ResponseCompression: Sendable, Hashable {
    enum Policy: Sendable, Hashable {
        case off
        case matchRequest
        case preferred(MessageEncoding)
    }

    let policy: Policy

    /// Responses are uncompressed unless the handler calls ``ServerContext/setResponseEncoding(_:)``.
    public static let off = ResponseCompression(policy: .off)
    /// Responses to a compressed request are compressed with the request's encoding.
    public static let matchRequest = ResponseCompression(policy: .matchRequest)
    /// Responses are compressed with `encoding` whenever the client accepts it.
    public static func preferred(_ encoding: MessageEncoding) -> ResponseCompression {
        ResponseCompression(policy: .preferred(encoding))
    }
}

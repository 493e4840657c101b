import CNghttp2

/// HTTP/2 error codes and the gRPC status each maps to.
enum HTTP2ErrorCode {
    /// The status for a stream reset with `code`, as gRPC's HTTP/2 protocol
    /// specifies: REFUSED_STREAM → UNAVAILABLE, CANCEL → CANCELLED,
    /// ENHANCE_YOUR_CALM → RESOURCE_EXHAUSTED, INADEQUATE_SECURITY →
    /// PERMISSION_DENIED, anything else → INTERNAL.
    static func status(for code: UInt32) -> Status.Code {
        switch code {
        case NGHTTP2_REFUSED_STREAM.rawValue: .unavailable
        case NGHTTP2_CANCEL.rawValue: .cancelled
        case NGHTTP2_ENHANCE_YOUR_CALM.rawValue: .resourceExhausted
        case NGHTTP2_INADEQUATE_SECURITY.rawValue: .permissionDenied
        default: .internal
        }
    }
}

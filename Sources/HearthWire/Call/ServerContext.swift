internal import NIOCore
import Synchronization

/// What a server handler knows about its call, and the response metadata it
/// may set.
public final class ServerContext: Sendable {
    /// The method's path, `/service/method`.
    public let path: String
    /// Custom request metadata (reserved headers removed, `-bin` decoded).
    public let requestMetadata: Metadata
    /// When the caller gives up, if it set a `grpc-timeout`.
    public let deadline: ContinuousClock.Instant?
    /// The peer's address, such as `127.0.0.1:51234` or `unix`.
    public let peer: String
    /// The request's `grpc-encoding`: how its compressed messages were packed (nil: none).
    public let requestEncoding: MessageEncoding?
    /// The encodings the client accepts for responses (its `grpc-accept-encoding`) that this server enables.
    public var acceptedResponseEncodings: [MessageEncoding] { compression.allowed }

    private let response: Mutex<(initial: Metadata, trailing: Metadata)>
    private let compression: OutboundCompression

    init(
        path: String, requestMetadata: Metadata, deadline: ContinuousClock.Instant?, peer: String,
        requestEncoding: MessageEncoding? = nil, compression: OutboundCompression = .none
    ) {
        self.path = path
        self.requestMetadata = requestMetadata
        self.deadline = deadline
        self.peer = peer
        self.requestEncoding = requestEncoding
        self.compression = compression
        self.response = Mutex((Metadata(), Metadata()))
    }

    /// The encoding response messages are compressed with (nil: none). It starts as the server's
    /// ``WireServer/Configuration/responseCompression`` decides for this call.
    public var responseEncoding: MessageEncoding? { compression.current }

    /// Chooses the encoding of response messages, or nil for none.
    ///
    /// Takes effect only before the first response message is written (the response headers name it), and
    /// only for an encoding in ``acceptedResponseEncodings``. Each message may still go uncompressed with
    /// ``MessageWriter/write(_:compressed:)``.
    /// - Returns: whether the encoding was set.
    @discardableResult
    public func setResponseEncoding(_ encoding: MessageEncoding?) -> Bool {
        compression.set(encoding)
    }

    /// Metadata sent with the response headers. Takes effect only if set
    /// before the first response message (or before the handler returns).
    public var initialMetadata: Metadata {
        get { response.withLock { $0.initial } }
        set { response.withLock { $0.initial = newValue } }
    }

    /// Metadata sent with the trailers.
    public var trailingMetadata: Metadata {
        get { response.withLock { $0.trailing } }
        set { response.withLock { $0.trailing = newValue } }
    }
}

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

    private let response: Mutex<(initial: Metadata, trailing: Metadata)>

    init(path: String, requestMetadata: Metadata, deadline: ContinuousClock.Instant?, peer: String) {
        self.path = path
        self.requestMetadata = requestMetadata
        self.deadline = deadline
        self.peer = peer
        self.response = Mutex((Metadata(), Metadata()))
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

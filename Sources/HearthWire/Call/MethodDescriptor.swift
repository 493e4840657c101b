public import NIOCore

/// The four shapes a gRPC call can take.
public enum CallKind: Sendable, Hashable {
    case unary
    case serverStreaming
    case clientStreaming
    case bidirectionalStreaming
}

/// Turns messages into bytes and back for one message type.
public struct MessageCodec<Message>: Sendable {
    /// Appends the serialized message (without the gRPC prefix) to the buffer.
    public var serialize: @Sendable (Message) throws -> [UInt8]
    /// Reads a message from the bytes of one gRPC message.
    public var deserialize: @Sendable (ByteBuffer) throws -> Message

    /// Creates a codec from two functions.
    public init(
        serialize: @escaping @Sendable (Message) throws -> [UInt8],
        deserialize: @escaping @Sendable (ByteBuffer) throws -> Message
    ) {
        self.serialize = serialize
        self.deserialize = deserialize
    }
}

/// A typed description of one method: its path, its shape, and how its
/// request and response messages are encoded.
///
/// ```swift
/// let get = MethodDescriptor<EchoRequest, EchoResponse>(
///     service: "hearth.echo.v1.Echo", method: "Get", kind: .unary)
/// ```
public struct MethodDescriptor<Request, Response>: Sendable {
    /// The fully qualified service name, such as `hearth.echo.v1.Echo`.
    public let service: String
    /// The method name, such as `Get`.
    public let method: String
    /// The call shape.
    public let kind: CallKind
    /// How requests are encoded.
    public let requestCodec: MessageCodec<Request>
    /// How responses are encoded.
    public let responseCodec: MessageCodec<Response>

    /// The HTTP/2 `:path`, `/service/method`.
    public var path: String { "/\(service)/\(method)" }

    /// Creates a descriptor with explicit codecs.
    public init(
        service: String, method: String, kind: CallKind,
        requestCodec: MessageCodec<Request>, responseCodec: MessageCodec<Response>
    ) {
        self.service = service
        self.method = method
        self.kind = kind
        self.requestCodec = requestCodec
        self.responseCodec = responseCodec
    }
}

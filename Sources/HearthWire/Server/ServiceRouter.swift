/// The methods a server answers, by path.
///
/// Services add their methods with one of the `register…` calls; each takes
/// the method's descriptor and a handler shaped like the call.
public struct ServiceRouter: Sendable {
    /// A type-erased handler: runs the call on its bridge and returns once
    /// the last response is queued. A thrown ``RPCError`` becomes the status.
    struct Handler: Sendable {
        let kind: CallKind
        let run: @Sendable (StreamBridge, ServerContext) async throws -> Void
    }

    private(set) var handlers: [String: Handler] = [:]

    /// An empty router.
    public init() {}

    /// Creates a router holding every method of `services`.
    public init(services: [any WireService]) {
        for service in services { service.register(into: &self) }
    }

    /// The registered paths, sorted.
    public var paths: [String] { handlers.keys.sorted() }

    func handler(for path: String) -> Handler? { handlers[path] }

    /// Registers a unary method: one request in, one response out.
    public mutating func registerUnary<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable (Request, ServerContext) async throws -> Response
    ) {
        handlers[method.path] = Handler(kind: .unary) { bridge, context in
            let request = try await Self.single(RequestStream(bridge: bridge, codec: method.requestCodec))
            let response = try await handler(request, context)
            try await MessageWriter(bridge: bridge, codec: method.responseCodec).write(response)
        }
    }

    /// Registers a server-streaming method: one request in, any number of
    /// responses out through the writer.
    public mutating func registerServerStreaming<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable (Request, MessageWriter<Response>, ServerContext) async throws -> Void
    ) {
        handlers[method.path] = Handler(kind: .serverStreaming) { bridge, context in
            let request = try await Self.single(RequestStream(bridge: bridge, codec: method.requestCodec))
            try await handler(request, MessageWriter(bridge: bridge, codec: method.responseCodec), context)
        }
    }

    /// Registers a client-streaming method: requests in until the client
    /// half-closes, one response out.
    public mutating func registerClientStreaming<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable (RequestStream<Request>, ServerContext) async throws -> Response
    ) {
        handlers[method.path] = Handler(kind: .clientStreaming) { bridge, context in
            let response = try await handler(RequestStream(bridge: bridge, codec: method.requestCodec), context)
            try await MessageWriter(bridge: bridge, codec: method.responseCodec).write(response)
        }
    }

    /// Registers a bidirectional method: requests and responses flow
    /// independently.
    public mutating func registerBidirectional<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable (RequestStream<Request>, MessageWriter<Response>, ServerContext) async throws -> Void
    ) {
        handlers[method.path] = Handler(kind: .bidirectionalStreaming) { bridge, context in
            try await handler(
                RequestStream(bridge: bridge, codec: method.requestCodec),
                MessageWriter(bridge: bridge, codec: method.responseCodec), context)
        }
    }

    /// Reads exactly one message, as unary and server-streaming calls require.
    private static func single<Request>(_ stream: RequestStream<Request>) async throws -> Request {
        var iterator = stream.makeAsyncIterator()
        guard let request = try await iterator.next() else {
            throw RPCError(code: .internal, message: "expected one request message, got none")
        }
        guard try await iterator.next() == nil else {
            throw RPCError(code: .internal, message: "expected one request message, got more")
        }
        return request
    }
}

/// A set of methods a ``WireServer`` can serve.
public protocol WireService: Sendable {
    /// Adds the service's methods to the router.
    func register(into router: inout ServiceRouter)
}

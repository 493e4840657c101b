internal import NIOCore

extension WireClient {
    /// Runs one call of any shape: the four call kinds are built on this.
    ///
    /// The body writes requests, calls ``ClientCall/finishRequests()`` and
    /// reads responses. If it returns (or throws) before the call finished,
    /// the call is cancelled. Cancelling the calling task cancels the call.
    ///
    /// - Throws: ``RPCError`` for the call's failure, or what the body throws.
    public func withCall<Request, Response, Result: Sendable>(
        _ method: MethodDescriptor<Request, Response>, options: CallOptions = CallOptions(),
        _ body: (ClientCall<Request, Response>) async throws -> Result
    ) async throws -> Result {
        try await withCall(method, options: options, request: nil, body)
    }

    /// ``withCall(_:options:_:)``; with `request`, the call's one request and its half-close are sent with
    /// the call's start (the body must not write).
    private func withCall<Request, Response, Result: Sendable>(
        _ method: MethodDescriptor<Request, Response>, options: CallOptions, request: Request?,
        _ body: (ClientCall<Request, Response>) async throws -> Result
    ) async throws -> Result {
        let preloaded = try request.map {
            try PreloadedRequest($0, codec: method.requestCodec, encoding: options.compression)
        }
        let connection = try await connection()
        let (bridge, head, streamID) = try await connection.channel.eventLoop.submit {
            try connection.handler.value.startCall(
                path: method.path, metadata: options.metadata, timeout: options.timeout, compression: options.compression,
                request: preloaded)
        }.get()
        let call = ClientCall(bridge: bridge, head: head, method: method, eventLoop: connection.channel.eventLoop)
        let cancel: @Sendable (Status) -> Void = { status in
            connection.channel.eventLoop.execute {
                connection.handler.value.cancel(streamID: streamID, status: status)
            }
        }
        do {
            let result = try await withTaskCancellationHandler {
                try await body(call)
            } onCancel: {
                cancel(Status(code: .cancelled, message: "call cancelled by the client"))
            }
            if !head.isFinished { cancel(Status(code: .cancelled, message: "call abandoned before it finished")) }
            return result
        } catch is CancellationError {
            if !head.isFinished { cancel(Status(code: .cancelled, message: "call cancelled by the client")) }
            throw RPCError(code: .cancelled, message: "call cancelled by the client")
        } catch {
            if !head.isFinished { cancel(Status(code: .cancelled, message: "call abandoned before it finished")) }
            throw error
        }
    }

    /// A unary call: one request, one response.
    public func unary<Request, Response: Sendable>(
        _ method: MethodDescriptor<Request, Response>, request: Request, options: CallOptions = CallOptions()
    ) async throws -> Response {
        try await unaryWithMetadata(method, request: request, options: options).message
    }

    /// A unary call that also returns the response's metadata.
    ///
    /// The caller's thread hands the call to the connection's event loop once and is resumed once, when the
    /// call has ended; it then decodes the answer itself. (A call built on ``withCall(_:options:_:)`` waits
    /// for its stream to start, then again for each part of the answer.)
    public func unaryWithMetadata<Request, Response: Sendable>(
        _ method: MethodDescriptor<Request, Response>, request: Request, options: CallOptions = CallOptions()
    ) async throws -> UnaryResponse<Response> {
        let preloaded = try PreloadedRequest(request, codec: method.requestCodec, encoding: options.compression)
        let connection = try await connection()
        let loop = connection.channel.eventLoop
        let handler = connection.handler
        let ticket = UnaryTicket()
        let answer = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UnaryAnswer, any Error>) in
                loop.execute {
                    handler.value.startUnary(
                        path: method.path, options: options, request: preloaded, ticket: ticket, continuation)
                }
            }
        } onCancel: {
            loop.execute { handler.value.cancelUnary(ticket) }
        }
        let message = try answer.message.decoded(
            with: method.responseCodec, limit: configuration.connection.limits.maxReceiveMessageSize)
        return UnaryResponse(
            message: message.message, initialMetadata: answer.initialMetadata, trailingMetadata: answer.trailingMetadata)
    }

    /// A server-streaming call: one request, then the body reads the responses.
    public func serverStreaming<Request, Response, Result: Sendable>(
        _ method: MethodDescriptor<Request, Response>, request: Request, options: CallOptions = CallOptions(),
        _ body: (RequestStream<Response>) async throws -> Result
    ) async throws -> Result {
        try await serverStreamingCall(method, request: request, options: options) { call in
            try await body(call.responses)
        }
    }

    /// ``serverStreaming(_:request:options:_:)`` whose body gets the call itself: its responses, its metadata,
    /// and its ``ClientCall/executor``, on which a reader that does little per message can take each one where
    /// it arrives instead of being woken on another thread. The request and the half-close leave with the
    /// call's start: the body must not write.
    public func serverStreamingCall<Request, Response, Result: Sendable>(
        _ method: MethodDescriptor<Request, Response>, request: Request, options: CallOptions = CallOptions(),
        _ body: (ClientCall<Request, Response>) async throws -> Result
    ) async throws -> Result {
        try await withCall(method, options: options, request: request, body)
    }

    /// A client-streaming call: the body writes requests; the single response
    /// is returned after the body returns (which half-closes the call).
    public func clientStreaming<Request, Response: Sendable>(
        _ method: MethodDescriptor<Request, Response>, options: CallOptions = CallOptions(),
        _ body: (MessageWriter<Request>) async throws -> Void
    ) async throws -> Response {
        try await withCall(method, options: options) { call in
            try await body(call.requests)
            call.finishRequests()
            return try await Self.singleResponse(call).message
        }
    }

    /// A bidirectional call: the body writes and reads as it likes, and
    /// should half-close with ``ClientCall/finishRequests()`` when done writing.
    public func bidirectional<Request, Response, Result: Sendable>(
        _ method: MethodDescriptor<Request, Response>, options: CallOptions = CallOptions(),
        _ body: (ClientCall<Request, Response>) async throws -> Result
    ) async throws -> Result {
        try await withCall(method, options: options, body)
    }

    private static func singleResponse<Request, Response: Sendable>(
        _ call: ClientCall<Request, Response>
    ) async throws -> UnaryResponse<Response> {
        var iterator = call.responses.makeAsyncIterator()
        guard let message = try await iterator.next() else {
            throw RPCError(code: .internal, message: "the server sent no response message")
        }
        guard try await iterator.next() == nil else {
            throw RPCError(code: .internal, message: "the server sent more than one response message")
        }
        let initial = try await call.initialMetadata()
        let (_, trailers) = await call.status()
        return UnaryResponse(message: message, initialMetadata: initial, trailingMetadata: trailers)
    }
}

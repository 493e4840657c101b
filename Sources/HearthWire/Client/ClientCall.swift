internal import NIOCore

/// Per-call options for a client call.
public struct CallOptions: Sendable {
    /// The call fails with DEADLINE_EXCEEDED after this long; sent to the
    /// server as `grpc-timeout` so it stops too. nil: no deadline.
    public var timeout: Duration?
    /// Custom request metadata, such as `authorization: Bearer …`.
    public var metadata: Metadata
    /// The encoding request messages are compressed with, sent as `grpc-encoding`; nil (the default): none.
    /// A server that does not take it answers UNIMPLEMENTED. Each message may still go uncompressed with
    /// ``MessageWriter/write(_:compressed:)``.
    public var compression: MessageEncoding?

    /// Creates options.
    /// - Parameters:
    ///   - timeout: the deadline, from the start of the call; nil for none.
    ///   - metadata: custom request metadata.
    ///   - compression: the request encoding; nil for none.
    public init(timeout: Duration? = nil, metadata: Metadata = [:], compression: MessageEncoding? = nil) {
        self.timeout = timeout
        self.metadata = metadata
        self.compression = compression
    }
}

/// One running client call: write requests, read responses and metadata.
///
/// Obtained inside ``WireClient/withCall(_:options:_:)``; the call is
/// cancelled (RST_STREAM CANCEL) if the body returns before it finished.
public struct ClientCall<Request, Response>: Sendable {
    let bridge: StreamBridge
    let head: ResponseHead
    let method: MethodDescriptor<Request, Response>
    let eventLoop: any EventLoop

    /// The executor of the thread that owns the call's connection. A task that prefers it
    /// (`group.addTask(executorPreference: call.executor) { … }`) writes to the call without waking another
    /// thread, and ``sleep(for:)`` resumes it in place; it must not compute for long, since it delays the
    /// connection's I/O meanwhile.
    public var executor: any TaskExecutor { EventLoopTaskExecutor(eventLoop: eventLoop) }

    /// Suspends for `duration` on the timer of the call's event loop rather than the global executor's timer
    /// thread: a task running on ``executor`` wakes in place, with no other thread woken.
    /// - Throws: `CancellationError` when the task is cancelled meanwhile.
    public func sleep(for duration: Duration) async throws {
        try await SleepAlarm().sleep(for: duration, on: eventLoop)
    }

    /// ``sleep(for:)`` that `alarm` ends early: a ring from any thread, during the sleep or before it began
    /// (since the last sleep or ``SleepAlarm/reset()``), makes it return at once. One task sleeps on an
    /// alarm at a time.
    /// - Throws: `CancellationError` when the task is cancelled (before or meanwhile).
    public func sleep(for duration: Duration, endingEarlyOn alarm: SleepAlarm) async throws {
        try await alarm.sleep(for: duration, on: eventLoop)
    }

    /// Sends one request; suspends while the peer is slow.
    /// - Throws: ``RPCError`` once the call can no longer send.
    public func write(_ request: Request) async throws {
        try await requests.write(request)
    }

    /// The request writer, for code that takes a ``MessageWriter``.
    public var requests: MessageWriter<Request> {
        MessageWriter(bridge: bridge, codec: method.requestCodec)
    }

    /// Half-closes: tells the server no more requests will come.
    public func finishRequests() {
        bridge.finishOutbound(.finished(.ok, [:]))
    }

    /// The responses; iteration ends normally on an OK status and throws
    /// ``RPCError`` (with the trailers as its metadata) otherwise.
    public var responses: RequestStream<Response> {
        RequestStream(bridge: bridge, codec: method.responseCodec)
    }

    /// The response headers' metadata (empty for a trailers-only response).
    /// - Throws: ``RPCError`` if the call failed before they arrived.
    public func initialMetadata() async throws -> Metadata {
        try await head.initialMetadata()
    }

    /// The final status and trailing metadata; waits for the end of the call.
    public func status() async -> (Status, Metadata) {
        await head.end()
    }
}

/// A unary response with its metadata.
public struct UnaryResponse<Message>: Sendable where Message: Sendable {
    public var message: Message
    public var initialMetadata: Metadata
    public var trailingMetadata: Metadata
}

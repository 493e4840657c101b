import CNghttp2
internal import NIOCore
import NIOSSL

/// The client side of one HTTP/2 connection: opens a stream per call, sends
/// what the call writes, and reports responses. Confined to the event loop.
final class ClientConnectionHandler: ChannelInboundHandler, NGHTTP2SessionDelegate {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// One call's loop-side state.
    final class Stream {
        var machine: ClientStreamStateMachine
        let bridge: StreamBridge
        let head: ResponseHead
        var deadlineTimer: Scheduled<Void>?
        /// Called once when the call ends, after its bridge and head learned how (``startUnary``).
        var onFinish: ((Status, Metadata) -> Void)?

        init(machine: ClientStreamStateMachine, bridge: StreamBridge, head: ResponseHead) {
            self.machine = machine
            self.bridge = bridge
            self.head = head
        }
    }

    let configuration: ConnectionConfiguration
    let authority: String
    /// `:scheme` of every request: `https` over TLS, `http` otherwise.
    let scheme: String
    /// The `grpc-accept-encoding` value of every request.
    let acceptEncoding: String
    /// Called once when this connection stops taking new calls.
    let onUnusable: @Sendable () -> Void
    var io: ConnectionIO!
    var session: NGHTTP2Session!
    var streams: [Int32: Stream] = [:]
    var usable = true
    /// The server's SETTINGS arrived: it speaks HTTP/2.
    var spokeHTTP2 = false
    /// Why the connection failed, when an error closed it (a TLS alert, say): calls ending then say so.
    var failure: String?
    /// The connection is gone (its streams were ended).
    var ended = false

    init(
        configuration: ConnectionConfiguration, authority: String, scheme: String = "http",
        onUnusable: @escaping @Sendable () -> Void
    ) {
        self.configuration = configuration
        self.authority = authority
        self.scheme = scheme
        self.acceptEncoding = MessageEncoding.acceptHeader(configuration.compression.enabledEncodings)
        self.onUnusable = onUnusable
    }

    func handlerAdded(context: ChannelHandlerContext) {
        do {
            session = try NGHTTP2Session(role: .client, options: configuration.sessionOptions, delegate: self)
        } catch {
            context.close(promise: nil)
            return
        }
        io = ConnectionIO(session: session, context: context, keepalive: configuration.keepalive)
        if context.channel.isActive { io.start() }
    }

    func channelActive(context: ChannelHandlerContext) {
        io?.start()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        io.receive(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        io.endOfReadBatch()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { io.flush() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        endStreams()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Break handler → io → context → handler so that the session is freed (see the server handler).
        endStreams()
        io = nil
        session = nil
    }

    /// Stops I/O and ends every call with UNAVAILABLE (the connection is gone); safe to call twice.
    private func endStreams() {
        io?.stop()
        ended = true
        markUnusable()
        guard !streams.isEmpty else { return }
        let message = closedMessage
        for (_, stream) in streams {
            finish(stream, status: Status(code: .unavailable, message: message), trailers: [:])
        }
        streams.removeAll()
    }

    /// What a call ended by the connection's end hears: why it ended, when that is known.
    var closedMessage: String {
        var message = "connection closed"
        if !spokeHTTP2, scheme == "http" {
            message += " before the server spoke HTTP/2 (a TLS port? then connect with TLS)"
        }
        if let failure { message += ": \(failure)" }
        return message
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil {
            failure =
                error is NIOSSLError || error is BoringSSLError
                ? TLSFailure.describe(error, side: .client).message : "\(error)"
        }
        context.close(promise: nil)
    }

    func markUnusable() {
        guard usable else { return }
        usable = false
        onUnusable()
    }
}

// MARK: - Starting and ending calls

extension ClientConnectionHandler {
    /// Opens a stream for a call and returns what the task side needs.
    /// - Throws: ``RPCError`` UNAVAILABLE when the connection takes no new calls.
    /// Opens a stream for a call. With `request`, the call's only message and its half-close leave with the
    /// headers.
    func startCall(
        path: String, metadata: Metadata, timeout: Duration?, compression: MessageEncoding? = nil,
        request: PreloadedRequest? = nil
    ) throws -> (StreamBridge, ResponseHead, Int32) {
        guard usable, io != nil else {
            throw RPCError(code: .unavailable, message: ended ? closedMessage : "connection is closing")
        }
        var headers: [(String, String)] = []
        headers.reserveCapacity(10 + metadata.entries.count)
        headers += [
            (":method", "POST"), (":scheme", scheme), (":path", path), (":authority", authority),
            ("content-type", "application/grpc"), ("te", "trailers"), ("user-agent", "hearth-wire/1"),
        ]
        if let timeout { headers.append(("grpc-timeout", GRPCTimeout(timeout).headerValue)) }
        if let compression { headers.append(("grpc-encoding", compression.name)) }
        headers.append(("grpc-accept-encoding", acceptEncoding))
        metadata.appendWireHeaders(to: &headers)

        let loop = io.eventLoop
        let box = NIOLoopBound(StreamIDBox(), eventLoop: loop)
        let handler = NIOLoopBound(self, eventLoop: loop)
        // A client's encoding is chosen before the call starts; it never changes.
        let outbound = compression.map { OutboundCompression(encoding: $0, allowed: [$0]) } ?? .none
        _ = outbound.fix()
        let bridge = StreamBridge(limits: configuration.bridgeLimits, outboundCompression: outbound) { request in
            loop.execute { handler.value.handle(request, streamID: box.value.id) }
        }
        if let request { bridge.preload(request) }
        let streamID: Int32
        do {
            streamID = try session.submitRequest(headers: headers)
        } catch {
            throw RPCError(code: .unavailable, message: "could not open a stream: \(error)")
        }
        box.value.id = streamID
        let head = ResponseHead()
        let stream = Stream(
            machine: ClientStreamStateMachine(
                maxReceiveMessageSize: configuration.limits.maxReceiveMessageSize,
                maxHeaderListSize: configuration.limits.maxHeaderListSize,
                enabledEncodings: configuration.compression.enabledEncodings),
            bridge: bridge, head: head)
        streams[streamID] = stream
        if let timeout {
            stream.deadlineTimer = loop.scheduleTask(in: .nanoseconds(timeout.nanosecondsClamped)) {
                handler.value.cancel(streamID: streamID, status: Status(code: .deadlineExceeded, message: "deadline exceeded"))
            }
        }
        io.flushSoon()
        return (bridge, head, streamID)
    }

    /// Ends a call from our side: reports `status` and resets the stream.
    func cancel(streamID: Int32, status: Status) {
        guard let stream = streams[streamID], !stream.machine.isFinished else { return }
        _ = stream.machine.streamClosed(errorCode: NGHTTP2_CANCEL.rawValue)
        finish(stream, status: status, trailers: [:])
        session.resetStream(streamID: streamID, errorCode: NGHTTP2_CANCEL.rawValue)
        io.flushSoon()
    }

    /// Reports the end of a call. With `dropQueued` (cancel, deadline, lost
    /// connection) messages not yet read are discarded; otherwise the reader
    /// gets them before the status.
    func finish(_ stream: Stream, status: Status, trailers: Metadata, dropQueued: Bool = true) {
        stream.deadlineTimer?.cancel()
        let error = RPCError(status: status, metadata: trailers)
        if let error, dropQueued {
            stream.bridge.fail(error, cancelTask: false)
        } else {
            stream.bridge.finishInbound(error.map { .failure($0) } ?? .success(()))
            stream.bridge.failOutbound(error ?? RPCError(code: .cancelled, message: "call finished"))
        }
        stream.head.setEnd(status, trailers: trailers)
        if let onFinish = stream.onFinish {
            stream.onFinish = nil
            onFinish(status, trailers)
        }
    }

    func handle(_ request: StreamBridge.LoopRequest, streamID: Int32) {
        guard streams[streamID] != nil else { return }
        switch request {
        case .consumed(let bytes): session.consume(streamID: streamID, bytes: bytes)
        case .outboundReady:
            _ = streams[streamID]!.bridge.takeOutboundRequest()
            session.resumeData(streamID: streamID)
        case .outboundOverBudget:
            break  // Client bridges have no budget account.
        }
        io.flushSoon()
    }

    /// Closes the connection once its calls are done (used by ``WireClient/close()``).
    func closeGracefully() {
        markUnusable()
        if streams.isEmpty { io?.closeAfterFlush() }
    }
}

/// The stream id, known only after the request is submitted.
final class StreamIDBox {
    var id: Int32 = 0
}

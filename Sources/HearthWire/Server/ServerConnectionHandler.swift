import CNghttp2
internal import NIOCore

/// The server side of one HTTP/2 connection: feeds bytes to nghttp2, turns
/// streams into calls for the server's task group, and sends what the calls
/// write. Confined to the channel's event loop.
final class ServerConnectionHandler: ChannelInboundHandler, NGHTTP2SessionDelegate {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// One stream's loop-side state.
    final class Stream {
        var machine: ServerStreamStateMachine
        var call: ServerCall?
        var responseHeadersSent = false
        /// Trailers (or a trailers-only response) have been submitted.
        var answered = false
        /// A status that ends the response at once (deadline).
        var forcedStatus: Status?
        var deadlineTimer: Scheduled<Void>?

        init(machine: ServerStreamStateMachine) { self.machine = machine }
    }

    let configuration: WireServer.Configuration
    let router: ServiceRouter
    let admission: CallAdmission
    let calls: AsyncStream<ServerCall>.Continuation
    private(set) var io: ConnectionIO!
    var session: NGHTTP2Session!
    var streams: [Int32: Stream] = [:]
    var peer = "unknown"
    var draining = false

    init(
        configuration: WireServer.Configuration, router: ServiceRouter, admission: CallAdmission,
        calls: AsyncStream<ServerCall>.Continuation
    ) {
        self.configuration = configuration
        self.router = router
        self.admission = admission
        self.calls = calls
    }

    func handlerAdded(context: ChannelHandlerContext) {
        do {
            session = try NGHTTP2Session(role: .server, options: configuration.connection.sessionOptions, delegate: self)
        } catch {
            context.close(promise: nil)
            return
        }
        io = ConnectionIO(session: session, context: context, keepalive: configuration.connection.keepalive)
        if let address = context.channel.remoteAddress {
            peer = address.description
        }
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
        io.stop()
        let error = RPCError(code: .unavailable, message: "connection closed")
        for (_, stream) in streams {
            stream.deadlineTimer?.cancel()
            stream.call?.bridge.fail(error, cancelTask: true)
        }
        streams.removeAll()
        calls.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is WireServer.GracefulShutdownEvent {
            beginGracefulShutdown()
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}

// MARK: - Graceful shutdown

extension ServerConnectionHandler {
    /// The double GOAWAY: a notice that stops new streams from being opened,
    /// then, a grace period later, the final GOAWAY naming the last stream
    /// we will process. The connection closes once its calls finish.
    func beginGracefulShutdown() {
        guard !draining, let io else { return }
        draining = true
        session.submitShutdownNotice()
        io.flush()
        io.schedule(after: configuration.shutdownNoticeGrace) { [weak self] in
            guard let self else { return }
            self.session.submitGoAway(errorCode: NGHTTP2_NO_ERROR.rawValue)
            self.io.flush()
            self.closeIfDrained()
        }
    }

    private func closeIfDrained() {
        guard draining, streams.isEmpty else { return }
        io.closeAfterFlush()
    }
}

// MARK: - Calls asking the loop to act

extension ServerConnectionHandler {
    func handle(_ request: StreamBridge.LoopRequest, streamID: Int32) {
        guard let stream = streams[streamID] else { return }
        switch request {
        case .consumed(let bytes):
            session.consume(streamID: streamID, bytes: bytes)
        case .outboundReady:
            guard let call = stream.call, !stream.answered else { return }
            let snapshot = call.bridge.takeOutboundRequest()
            if stream.responseHeadersSent {
                session.resumeData(streamID: streamID)
            } else if snapshot.bufferedBytes == 0, case .finished(let status, let trailers)? = snapshot.end {
                answerTrailersOnly(stream: stream, streamID: streamID, status: status, metadata: call.context.initialMetadata, trailers: trailers)
            } else {
                stream.responseHeadersSent = true
                var headers = [(":status", "200"), ("content-type", "application/grpc")]
                headers += call.context.initialMetadata.wireHeaders
                try? session.submitResponse(streamID: streamID, headers: headers, withBody: true)
            }
        }
        io.flushSoon()
    }

    func answerTrailersOnly(
        stream: Stream, streamID: Int32, status: Status, httpStatus: Int = 200, metadata: Metadata = [:],
        trailers: Metadata = [:]
    ) {
        stream.answered = true
        stream.responseHeadersSent = true
        var headers = [(":status", String(httpStatus)), ("content-type", "application/grpc")]
        headers += Self.statusHeaders(status)
        headers += metadata.wireHeaders
        headers += trailers.wireHeaders
        try? session.submitResponse(streamID: streamID, headers: headers, withBody: false)
    }

    static func statusHeaders(_ status: Status) -> [(String, String)] {
        var headers = [("grpc-status", String(status.code.rawValue))]
        if !status.message.isEmpty {
            headers.append(("grpc-message", PercentEncoding.encode(status.message)))
        }
        return headers
    }

    func deadlineExpired(streamID: Int32) {
        guard let stream = streams[streamID], !stream.answered else { return }
        let status = Status(code: .deadlineExceeded, message: "deadline exceeded")
        stream.call?.bridge.fail(RPCError(status: status)!, cancelTask: true)
        if stream.responseHeadersSent {
            stream.forcedStatus = status
            session.resumeData(streamID: streamID)
        } else {
            answerTrailersOnly(stream: stream, streamID: streamID, status: status)
        }
        io.flushSoon()
    }
}

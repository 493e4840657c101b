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
        /// Ends the call if its first message does not come in time.
        var firstMessageTimer: Scheduled<Void>?
        /// Dispatched without its first message; the timer is armed at the end of the read that dispatched
        /// it if the message has not come in the same read (a unary call's usually has).
        var awaitsFirstMessage = false
        /// Bytes of this stream's incomplete message charged to the budgets.
        var partialBytes = 0
        /// A gRPC-Web call's response body (messages, then the trailer frame); nil for native gRPC.
        var web: GRPCWebResponseBody?

        /// The response's `content-type`.
        var responseContentType: String { web?.format.responseContentType ?? "application/grpc" }

        init(machine: ServerStreamStateMachine) { self.machine = machine }

        func cancelTimers() {
            deadlineTimer?.cancel()
            stopWaitingForFirstMessage()
        }

        /// The first message came, or the call ended: no timer is needed.
        func stopWaitingForFirstMessage() {
            awaitsFirstMessage = false
            firstMessageTimer?.cancel()
            firstMessageTimer = nil
        }
    }

    let configuration: WireServer.Configuration
    let router: ServiceRouter
    let admission: CallAdmission
    let calls: any CallSink
    /// This connection's account of queued outbound bytes, which also charges the server's budget.
    let budget: ConnectionBudget
    /// Set between `handlerAdded` and `handlerRemoved`. The connection's objects point at each other
    /// (handler → io → context → handler; nghttp2's user data → session), so they are let go explicitly
    /// when the channel drops the handler: that is what frees the nghttp2 session.
    private(set) var io: ConnectionIO!
    var session: NGHTTP2Session!
    var streams: [Int32: Stream] = [:]
    var peer = "unknown"
    var draining = false
    /// Bytes of incomplete messages this connection's streams hold now.
    var partialBytes = 0
    /// The connection is closing with ENHANCE_YOUR_CALM.
    var calmedDown = false
    /// The `grpc-accept-encoding` value of every response.
    let acceptEncoding: String
    /// Admits and makes calls.
    let starter: CallStart
    /// Streams dispatched in the current read without their first message (see ``armFirstMessageTimers()``).
    var dispatchedThisRead: [Int32] = []

    init(starter: CallStart, calls: any CallSink) {
        self.configuration = starter.configuration
        self.router = starter.router
        self.admission = starter.admission
        self.budget = starter.budget
        self.starter = starter
        self.calls = calls
        self.acceptEncoding = MessageEncoding.acceptHeader(configuration.connection.compression.enabledEncodings)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        do {
            session = try NGHTTP2Session(
                role: .server, options: configuration.connection.sessionOptions, delegate: self,
                budget: budget.server)
        } catch {
            context.close(promise: nil)
            return
        }
        io = ConnectionIO(
            session: session, context: context, keepalive: configuration.connection.keepalive, budget: budget)
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
        if !dispatchedThisRead.isEmpty { armFirstMessageTimers() }
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
        // Closed however it closed (GOAWAY, reset, EOF, error, idle): break the cycles so the session,
        // its buffers and this handler are freed. Loop work queued earlier finds no streams and no io.
        endStreams()
        io = nil
        session = nil
        budget.server.countClosedConnection()
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
            guard let self, self.io != nil else { return }
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
        case .outboundOverBudget(.connectionExhausted):
            closeForCalm(debug: "queued_outbound_budget")
            return
        case .outboundOverBudget:
            // The server's budget is spent and this stream's reader is behind: end it alone.
            budget.server.countOutboundReset()
            stream.answered = true
            stream.call?.bridge.fail(
                RPCError(code: .resourceExhausted, message: "queued-outbound budget spent"), cancelTask: true)
            session.resetStream(streamID: streamID, errorCode: NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
        case .outboundReady:
            guard let call = stream.call, !stream.answered else { return }
            let snapshot = call.bridge.takeOutboundRequest()
            if stream.responseHeadersSent {
                session.resumeData(streamID: streamID)
            } else if snapshot.bufferedBytes == 0, case .finished(let status, let trailers)? = snapshot.end {
                answerTrailersOnly(stream: stream, streamID: streamID, status: status, metadata: call.context.initialMetadata, trailers: trailers)
            } else {
                stream.responseHeadersSent = true
                // One array, sized once: the response head is built per call.
                let metadata = call.context.initialMetadata
                var headers: [(String, String)] = []
                headers.reserveCapacity(4 + metadata.entries.count)
                headers.append((":status", "200"))
                headers.append(("content-type", stream.responseContentType))
                if let encoding = call.bridge.outboundCompression.fix() { headers.append(("grpc-encoding", encoding.name)) }
                headers.append(("grpc-accept-encoding", acceptEncoding))
                metadata.appendWireHeaders(to: &headers)
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
        var headers: [(String, String)] = []
        headers.reserveCapacity(5 + metadata.entries.count + trailers.entries.count)
        headers.append((":status", String(httpStatus)))
        headers.append(("content-type", stream.responseContentType))
        headers.append(("grpc-accept-encoding", acceptEncoding))
        Self.appendStatusHeaders(status, to: &headers)
        metadata.appendWireHeaders(to: &headers)
        trailers.appendWireHeaders(to: &headers)
        try? session.submitResponse(streamID: streamID, headers: headers, withBody: false)
    }

    static func statusHeaders(_ status: Status, trailers: Metadata = [:]) -> [(String, String)] {
        var headers: [(String, String)] = []
        headers.reserveCapacity(2 + trailers.entries.count)
        appendStatusHeaders(status, to: &headers)
        trailers.appendWireHeaders(to: &headers)
        return headers
    }

    static func appendStatusHeaders(_ status: Status, to headers: inout [(String, String)]) {
        headers.append(("grpc-status", String(status.code.rawValue)))
        if !status.message.isEmpty {
            headers.append(("grpc-message", PercentEncoding.encode(status.message)))
        }
    }

    func deadlineExpired(streamID: Int32) {
        guard let stream = streams[streamID], !stream.answered, io != nil else { return }
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

// MARK: - Budgets

extension ServerConnectionHandler {
    /// Charges (or releases) the change in a stream's incomplete-message bytes.
    /// - Returns: false when the connection's or the server's budget cannot take it; nothing is charged then.
    func chargePartial(_ stream: Stream, now: Int) -> Bool {
        let delta = now - stream.partialBytes
        if delta <= 0 {
            budget.server.releasePartial(-delta)
            partialBytes += delta
            stream.partialBytes = now
            return true
        }
        let limits = configuration.connection.budgets
        guard partialBytes + delta <= limits.partialMessageBytesPerConnection, budget.server.reservePartial(delta) else {
            budget.server.countPartialRefusal()
            return false
        }
        partialBytes += delta
        stream.partialBytes = now
        return true
    }

    func releasePartial(_ stream: Stream) {
        _ = chargePartial(stream, now: 0)
    }

    /// Stops I/O and ends every stream's call (the connection is gone); safe to call twice.
    private func endStreams() {
        io?.stop()
        let error = RPCError(code: .unavailable, message: "connection closed")
        for (_, stream) in streams {
            stream.cancelTimers()
            stream.call?.bridge.fail(error, cancelTask: true)
        }
        streams.removeAll()
        budget.server.releasePartial(partialBytes)
        partialBytes = 0
        calls.finish()
    }

    /// GOAWAY ENHANCE_YOUR_CALM, then close: the peer broke a budget no single call can answer for.
    func closeForCalm(debug: String) {
        guard let io, !calmedDown else { return }
        calmedDown = true
        budget.server.countCalmClosure()
        session.submitGoAway(errorCode: NGHTTP2_ENHANCE_YOUR_CALM.rawValue, debug: debug)
        io.closeAfterFlush()
    }

    func firstMessageOverdue(streamID: Int32) {
        guard let stream = streams[streamID], io != nil, !stream.answered else { return }
        budget.server.countFirstMessageTimeout()
        let seconds = configuration.connection.budgets.firstMessageTimeout.map { "\($0)" } ?? "time"
        failCall(
            stream: stream, streamID: streamID,
            status: Status(code: .resourceExhausted, message: "no request message within \(seconds)"))
        io.flushSoon()
    }
}

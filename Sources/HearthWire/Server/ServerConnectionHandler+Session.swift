import CNghttp2
internal import NIOCore

/// nghttp2 events for a server connection.
extension ServerConnectionHandler {
    func sessionBeginHeaders(streamID: Int32) {
        guard streams[streamID] == nil else { return }
        let limits = ServerStreamStateMachine.Limits(
            maxHeaderListSize: configuration.connection.limits.maxHeaderListSize,
            maxReceiveMessageSize: configuration.connection.limits.maxReceiveMessageSize,
            enabledEncodings: configuration.connection.compression.enabledEncodings)
        streams[streamID] = Stream(machine: ServerStreamStateMachine(limits: limits))
    }

    func sessionHeader(streamID: Int32, name: String, value: String) -> Bool {
        streams[streamID]?.machine.receiveHeader(name: name, value: value)
        return true
    }

    func sessionHeadersComplete(streamID: Int32, endStream: Bool) {
        guard let stream = streams[streamID] else { return }
        switch stream.machine.receiveHeadersComplete(endStream: endStream) {
        case .dispatch(let head):
            dispatch(head, stream: stream, streamID: streamID, endStream: endStream)
        case .reject(let httpStatus, let status):
            rejectBeforeDispatch(stream: stream, streamID: streamID, status: status, httpStatus: httpStatus)
            if !endStream { io.resetAfterFlush(streamID: streamID, errorCode: NGHTTP2_NO_ERROR.rawValue) }
        case .finishInbound:
            stream.call?.bridge.finishInbound(.success(()))
        case .fail(let status):
            failCall(stream: stream, streamID: streamID, status: status)
        case .none:
            break
        }
        io.flushSoon()
    }

    func sessionData(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        guard let stream = streams[streamID] else {
            session.consume(streamID: streamID, bytes: bytes.count)
            return
        }
        switch stream.machine.receiveData(bytes) {
        case .deliver(let messages):
            guard chargePartial(stream, now: stream.machine.partialMessageBytes) else {
                session.consume(streamID: streamID, bytes: bytes.count)
                let limits = configuration.connection.budgets
                failCall(
                    stream: stream, streamID: streamID,
                    status: Status(
                        code: .resourceExhausted,
                        message: "incomplete messages exceed the budget of \(limits.partialMessageBytesPerConnection) bytes per connection or \(limits.partialMessageBytesPerServer) per server"))
                return
            }
            if !messages.isEmpty { stream.firstMessageTimer?.cancel() }
            let release = stream.call?.bridge.deliver(messages, chunkBytes: bytes.count) ?? bytes.count
            session.consume(streamID: streamID, bytes: release)
        case .fail(let status):
            session.consume(streamID: streamID, bytes: bytes.count)
            failCall(stream: stream, streamID: streamID, status: status)
        case .drop:
            session.consume(streamID: streamID, bytes: bytes.count)
        }
    }

    func sessionDataFrameComplete(streamID: Int32, endStream: Bool, padding: Int) {
        session.consume(streamID: streamID, bytes: padding)
        guard endStream, let stream = streams[streamID] else { return }
        stream.firstMessageTimer?.cancel()
        defer { releasePartial(stream) }
        switch stream.machine.receiveEndStream() {
        case .finishInbound: stream.call?.bridge.finishInbound(.success(()))
        case .fail(let status): failCall(stream: stream, streamID: streamID, status: status)
        case .none: break
        }
    }

    func sessionStreamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        stream.cancelTimers()
        releasePartial(stream)
        if let call = stream.call {
            // A reset from the peer (or a close before we answered) stops the
            // handler; after a clean answer this only releases the bridge.
            let error = errorCode == 0 && stream.answered
                ? RPCError(code: .cancelled, message: "call finished")
                : RPCError(code: HTTP2ErrorCode.status(for: errorCode), message: "stream reset by peer (HTTP/2 error \(errorCode))")
            call.bridge.fail(error, cancelTask: !(errorCode == 0 && stream.answered))
        }
        if streams.isEmpty, draining { io.closeAfterFlush() }
    }

    func sessionReadData(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer) -> NGHTTP2Session.ReadResult {
        guard let stream = streams[streamID], let call = stream.call else { return .failure }
        if let status = stream.forcedStatus {
            stream.answered = true
            try? session.submitTrailers(streamID: streamID, headers: Self.statusHeaders(status))
            return .bytes(0, end: .trailersFollow)
        }
        let (count, end) = call.bridge.readOutbound(into: buffer)
        guard let end else { return count == 0 ? .deferred : .bytes(count, end: nil) }
        switch end {
        case .finished(let status, let trailers):
            stream.answered = true
            try? session.submitTrailers(streamID: streamID, headers: Self.statusHeaders(status, trailers: trailers))
            return .bytes(count, end: .trailersFollow)
        }
    }

    func sessionPing(ack: Bool) {
        if ack {
            io.pingAcknowledged()
        } else if io.pingReceived(hasActiveStreams: !streams.isEmpty) == .tooManyPings {
            closeForCalm(debug: "too_many_pings")
        }
    }

    func sessionGoAway(lastStreamID: Int32, errorCode: UInt32) {}
}

// MARK: - Starting and failing calls

extension ServerConnectionHandler {
    private func dispatch(
        _ head: ServerStreamStateMachine.RequestHead, stream: Stream, streamID: Int32, endStream: Bool
    ) {
        guard let handler = router.handler(for: head.path) else {
            rejectBeforeDispatch(
                stream: stream, streamID: streamID,
                status: Status(code: .unimplemented, message: "method \(head.path) is not implemented"))
            if !endStream { io.resetAfterFlush(streamID: streamID, errorCode: NGHTTP2_NO_ERROR.rawValue) }
            return
        }
        // Credentials are checked here, before a body is buffered or a handler slot taken.
        if let gate = configuration.callGate, let refusal = gate(head.path, head.metadata) {
            budget.server.countUnauthenticatedRefusal()
            rejectBeforeDispatch(stream: stream, streamID: streamID, status: refusal)
            if !endStream { io.resetAfterFlush(streamID: streamID, errorCode: NGHTTP2_NO_ERROR.rawValue) }
            return
        }
        // Streams that arrive between the GOAWAY notice and the final GOAWAY
        // are served (that is the point of the notice); after the final one,
        // nghttp2 refuses streams above its last stream id by itself.
        guard admission.tryAdmit() else {
            // Not processed: the client may retry elsewhere (UNAVAILABLE).
            session.resetStream(streamID: streamID, errorCode: NGHTTP2_REFUSED_STREAM.rawValue)
            return
        }
        let loop = io.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        let compression = responseCompression(for: head)
        let bridge = StreamBridge(
            limits: configuration.connection.bridgeLimits, budget: budget, outboundCompression: compression
        ) { request in
            loop.execute { bound.value.handle(request, streamID: streamID) }
        }
        let now = ContinuousClock.now
        let context = ServerContext(
            path: head.path, requestMetadata: head.metadata,
            deadline: head.timeout.map { now + $0.duration }, peer: peer, requestEncoding: head.encoding,
            compression: compression)
        let call = ServerCall(bridge: bridge, context: context, handler: handler, admission: admission)
        stream.call = call
        if endStream { bridge.finishInbound(.success(())) }
        if !endStream, let wait = configuration.connection.budgets.firstMessageTimeout {
            stream.firstMessageTimer = loop.scheduleTask(in: .nanoseconds(wait.nanosecondsClamped)) {
                bound.value.firstMessageOverdue(streamID: streamID)
            }
        }
        if let timeout = head.timeout {
            stream.deadlineTimer = loop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
                bound.value.deadlineExpired(streamID: streamID)
            }
        }
        io.streamOpened()
        calls.yield(call)
    }

    /// The response encodings a call may use (enabled here and accepted by the client) and the one it starts
    /// with, as ``WireServer/Configuration/responseCompression`` says.
    private func responseCompression(for head: ServerStreamStateMachine.RequestHead) -> OutboundCompression {
        let allowed = configuration.connection.compression.enabledEncodings.filter(head.acceptedEncodings.contains)
        let initial: MessageEncoding? =
            switch configuration.responseCompression.policy {
            case .off: nil
            case .matchRequest: head.encoding.flatMap { allowed.contains($0) ? $0 : nil }
            case .preferred(let encoding): allowed.contains(encoding) ? encoding : nil
            }
        return allowed.isEmpty ? .none : OutboundCompression(encoding: initial, allowed: allowed)
    }

    private func rejectBeforeDispatch(stream: Stream, streamID: Int32, status: Status, httpStatus: Int = 200) {
        answerTrailersOnly(stream: stream, streamID: streamID, status: status, httpStatus: httpStatus)
    }

    /// Ends a running call because of what its peer sent.
    func failCall(stream: Stream, streamID: Int32, status: Status) {
        guard !stream.answered else { return }
        stream.firstMessageTimer?.cancel()
        stream.machine.abandon()
        releasePartial(stream)
        stream.call?.bridge.fail(RPCError(status: status)!, cancelTask: true)
        if stream.responseHeadersSent {
            stream.forcedStatus = status
            session.resumeData(streamID: streamID)
        } else {
            answerTrailersOnly(stream: stream, streamID: streamID, status: status)
            // Stop the peer from sending the rest (say, of an oversized message).
            io.resetAfterFlush(streamID: streamID, errorCode: NGHTTP2_NO_ERROR.rawValue)
        }
    }
}

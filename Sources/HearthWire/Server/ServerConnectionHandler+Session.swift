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
            if !messages.isEmpty { stream.stopWaitingForFirstMessage() }
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
        stream.stopWaitingForFirstMessage()
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
        if stream.web != nil { return readWebData(stream: stream, call: call, into: buffer) }
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

    /// gRPC-Web over HTTP/2: the status goes in the body's last frame and the stream ends with the DATA.
    private func readWebData(
        stream: Stream, call: ServerCall, into buffer: UnsafeMutableRawBufferPointer
    ) -> NGHTTP2Session.ReadResult {
        if stream.web!.readableBytes == 0, !stream.web!.ended {
            if let status = stream.forcedStatus {
                stream.web!.end(status)
            } else {
                var chunk = [UInt8](repeating: 0, count: buffer.count)
                let (count, end) = chunk.withUnsafeMutableBytes { call.bridge.readOutbound(into: $0) }
                stream.web!.append(chunk[..<count])
                if case .finished(let status, let trailers)? = end { stream.web!.end(status, trailers: trailers) }
            }
        }
        let count = stream.web!.read(into: buffer)
        if stream.web!.isFinished {
            stream.answered = true
            return .bytes(count, end: .endStream)
        }
        return count == 0 ? .deferred : .bytes(count, end: nil)
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
        if let format = head.web { stream.web = GRPCWebResponseBody(format: format) }
        let handler: ServiceRouter.Handler
        switch starter.admit(head) {
        case .refuse(let status):
            rejectBeforeDispatch(stream: stream, streamID: streamID, status: status)
            if !endStream { io.resetAfterFlush(streamID: streamID, errorCode: NGHTTP2_NO_ERROR.rawValue) }
            return
        case .overloaded:
            // Streams that arrive between the GOAWAY notice and the final GOAWAY are served (that is the
            // point of the notice); after the final one, nghttp2 refuses streams above its last stream id by
            // itself. Not processed: the client may retry elsewhere (UNAVAILABLE).
            session.resetStream(streamID: streamID, errorCode: NGHTTP2_REFUSED_STREAM.rawValue)
            return
        case .admitted(let admitted):
            handler = admitted
        }
        let loop = io.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        let call = starter.makeCall(head, handler: handler, peer: peer) { request in
            loop.execute { bound.value.handle(request, streamID: streamID) }
        }
        stream.call = call
        if endStream { call.bridge.finishInbound(.success(())) }
        if !endStream, configuration.connection.budgets.firstMessageTimeout != nil {
            stream.awaitsFirstMessage = true
            dispatchedThisRead.append(streamID)
        }
        if let timeout = head.timeout {
            stream.deadlineTimer = loop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
                bound.value.deadlineExpired(streamID: streamID)
            }
        }
        io.streamOpened()
        calls.start(call)
    }

    /// After a read: a timer for each call dispatched in it whose first message did not come with it. Arming
    /// it only then spares the unary call, whose message nearly always arrives with its headers, a timer.
    func armFirstMessageTimers() {
        defer { dispatchedThisRead.removeAll(keepingCapacity: true) }
        guard let wait = configuration.connection.budgets.firstMessageTimeout else { return }
        let loop = io.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        for streamID in dispatchedThisRead {
            guard let stream = streams[streamID], stream.awaitsFirstMessage else { continue }
            stream.firstMessageTimer = loop.scheduleTask(in: .nanoseconds(wait.nanosecondsClamped)) {
                bound.value.firstMessageOverdue(streamID: streamID)
            }
        }
    }

    private func rejectBeforeDispatch(stream: Stream, streamID: Int32, status: Status, httpStatus: Int = 200) {
        answerTrailersOnly(stream: stream, streamID: streamID, status: status, httpStatus: httpStatus)
    }

    /// Ends a running call because of what its peer sent.
    func failCall(stream: Stream, streamID: Int32, status: Status) {
        guard !stream.answered else { return }
        stream.stopWaitingForFirstMessage()
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

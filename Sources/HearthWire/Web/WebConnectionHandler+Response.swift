internal import NIOCore
internal import NIOHTTP1

/// The response side of a gRPC-Web call on HTTP/1.1: a chunked body of messages ending in the trailer frame, or
/// a trailers-only answer (status in the headers, empty body) when nothing was sent before the status.
extension WebConnectionHandler {
    /// What the call's bridge asks of the loop; requests meant for an earlier call are ignored.
    func handle(_ loopRequest: StreamBridge.LoopRequest, generation: Int) {
        guard generation == self.generation, case .call(let web) = request, !web.answered, let call = web.call else {
            return
        }
        switch loopRequest {
        case .consumed:
            break  // HTTP/1.1 has no window to open; the body is bounded by one message instead.
        case .outboundOverBudget(.connectionExhausted):
            failCall(web, status: Status(code: .resourceExhausted, message: "queued-outbound budget spent"))
            context?.close(promise: nil)
        case .outboundOverBudget:
            failCall(web, status: Status(code: .resourceExhausted, message: "queued-outbound budget spent"))
        case .outboundReady:
            let snapshot = call.bridge.takeOutboundRequest()
            if !web.headSent, snapshot.bufferedBytes == 0, case .finished(let status, let trailers)? = snapshot.end {
                answerTrailersOnly(web, status: status, metadata: call.context.initialMetadata, trailers: trailers)
                return
            }
            pump(web)
        }
    }

    /// Moves what the call has written to the socket while the socket takes it.
    func pump(_ web: WebCall) {
        guard let context, !web.answered, let call = web.call else { return }
        if !web.headSent { sendHead(web, call: call) }
        var wrote = false
        while context.channel.isWritable, !web.body.ended {
            var chunk = ByteBuffer()
            var end: StreamBridge.OutboundEnd?
            let count = chunk.writeWithUnsafeMutableBytes(minimumWritableBytes: 16 * 1024) { space in
                let (count, ended) = call.bridge.readOutbound(into: space)
                end = ended
                return count
            }
            web.body.append(chunk.readableBytesView)
            if case .finished(let status, let trailers)? = end { web.body.end(status, trailers: trailers) }
            wrote = writeBody(web) || wrote
            if count == 0 { break }
        }
        if web.body.isFinished {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            complete(web)
        } else if wrote {
            context.flush()
        }
    }

    /// Writes what the body holds ready. - Returns: whether anything was written.
    private func writeBody(_ web: WebCall) -> Bool {
        guard let context, web.body.readableBytes > 0 else { return false }
        let bytes = web.body.readAll()
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
        return true
    }

    private func sendHead(_ web: WebCall, call: ServerCall) {
        web.headSent = true
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: web.format.responseContentType)
        if let encoding = call.bridge.outboundCompression.fix() { headers.add(name: "grpc-encoding", value: encoding.name) }
        var metadata: [(String, String)] = []
        call.context.initialMetadata.appendWireHeaders(to: &metadata)
        for (name, value) in metadata { headers.add(name: name, value: value) }
        for field in web.corsHeaders { headers.add(name: field.name, value: field.value) }
        if !web.head.isKeepAlive || draining { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: web.head.version, status: .ok, headers: headers)
        context?.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Answers with the status in the response headers and an empty body.
    func answerTrailersOnly(
        _ web: WebCall, status: Status, httpStatus: Int = 200, metadata: Metadata = [:], trailers: Metadata = [:]
    ) {
        guard let context, !web.answered else { return }
        var fields: [(String, String)] = [("content-type", web.format.responseContentType), ("content-length", "0")]
        ServerConnectionHandler.appendStatusHeaders(status, to: &fields)
        metadata.appendWireHeaders(to: &fields)
        trailers.appendWireHeaders(to: &fields)
        fields.append(contentsOf: web.corsHeaders.map { ($0.name, $0.value) })
        if !web.head.isKeepAlive || draining { fields.append(("connection", "close")) }
        let head = HTTPResponseHead(
            version: web.head.version, status: HTTPResponseStatus(statusCode: httpStatus), headers: HTTPHeaders(fields))
        web.headSent = true
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        complete(web)
    }

    /// Ends a call from this side with `status`: in the headers if none were sent, else in the trailer frame.
    func failCall(_ web: WebCall, status: Status) {
        guard !web.answered else { return }
        web.machine.abandon()
        web.call?.bridge.fail(RPCError(status: status)!, cancelTask: true)
        guard web.headSent, let context else {
            answerTrailersOnly(web, status: status)
            return
        }
        web.body.end(status)
        _ = writeBody(web)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        complete(web)
    }

    /// The response is out: the exchange ends when the request has too, else the rest of the request is dropped.
    private func complete(_ web: WebCall) {
        web.answered = true
        for timer in web.timers { timer.cancel() }
        web.timers = []
        if web.requestEnded {
            request = .idle
            finishExchange(keepAlive: web.head.isKeepAlive)
        } else {
            request = .discarding(keepAlive: web.head.isKeepAlive)
        }
    }

    /// The connection is gone: a running call is cancelled.
    func endCall(_ error: RPCError) {
        guard case .call(let web) = request else { return }
        for timer in web.timers { timer.cancel() }
        web.timers = []
        if !web.answered {
            web.answered = true
            web.call?.bridge.fail(error, cancelTask: true)
        }
        request = .idle
    }
}

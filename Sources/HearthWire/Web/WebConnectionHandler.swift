internal import NIOCore
internal import NIOHTTP1

/// One HTTP/1.1 connection of a ``WireServer`` with ``WireServer/Configuration/web`` set: gRPC-Web calls for the
/// server's handlers, CORS preflights, and everything else for the configured responder. Requests are served one
/// at a time, in order (NIO's pipelining handler holds later ones). Confined to the channel's event loop.
final class WebConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the connection is doing with the current request.
    enum Request {
        case idle
        /// A gRPC-Web call.
        case call(WebCall)
        /// A request for the responder, or a preflight; answered at its end.
        case other(HTTPRequestHead)
        /// Already answered: the rest of the request is read and dropped.
        case discarding(keepAlive: Bool)
    }

    let starter: CallStart
    let web: WireServer.Configuration.Web
    let cors: CORSPolicy
    let calls: any CallSink
    var request = Request.idle
    var context: ChannelHandlerContext?
    var peer = "unknown"
    /// A graceful shutdown began: close once the current request is answered.
    var draining = false
    /// Counts requests, so that a loop hop meant for an earlier call finds it gone.
    var generation = 0

    init(starter: CallStart, web: WireServer.Configuration.Web, calls: any CallSink) {
        self.starter = starter
        self.web = web
        self.cors = CORSPolicy(allowedOrigins: web.allowedOrigins)
        self.calls = calls
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if let address = context.channel.remoteAddress { peer = address.description }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endCall(RPCError(code: .unavailable, message: "connection closed"))
        self.context = nil
        calls.finish()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A browser cancels a gRPC-Web stream by closing its connection.
        endCall(RPCError(code: .cancelled, message: "the client closed the connection"))
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, case .call(let call) = request { pump(call) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is WireServer.GracefulShutdownEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        draining = true
        if case .idle = request { context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), request) {
        case (.head(let head), .idle):
            generation += 1
            begin(head)
        case (.body(let bytes), .call(let call)):
            receive(bytes, for: call)
        case (.end, .call(let call)):
            receiveEnd(for: call)
        case (.end, .other(let head)):
            answerOther(head)
        case (.end, .discarding(let keepAlive)):
            request = .idle
            finishExchange(keepAlive: keepAlive)
        case (.body, _), (.end, _):
            break  // a request's body for the responder is not read; a dropped call's rest neither
        case (.head, _):
            context.close(promise: nil)  // the pipelining handler never lets a second head in early
        }
    }

    private func begin(_ head: HTTPRequestHead) {
        let contentType = head.headers.first(name: "content-type")
        if head.method == .POST, let contentType, GRPCWebFormat(contentType: contentType) != nil {
            startCall(head)
        } else {
            request = .other(head)
        }
    }

    /// Answers a request that is not a gRPC-Web call: a preflight at once, anything else through the responder.
    private func answerOther(_ head: HTTPRequestHead) {
        let origin = head.headers.first(name: "origin")
        let host = head.headers.first(name: "host")
        if head.method == .OPTIONS {
            let answer = cors.preflight(
                origin: origin, host: host, requestedHeaders: head.headers.first(name: "access-control-request-headers"))
            send(answer, to: head)
            return
        }
        guard let responder = web.responder else {
            send(.text(404, "not found\n"), to: head)
            return
        }
        let (path, query) = Self.split(head.uri)
        let request = WebRequest(
            method: head.method.rawValue, path: path, query: query,
            headers: head.headers.map { (name: $0.name.lowercased(), value: $0.value) }, peer: peer)
        let loop = context!.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        let generation = self.generation
        Task {
            let response = await responder(request)
            loop.execute {
                guard bound.value.generation == generation else { return }
                bound.value.send(response, to: head)
            }
        }
    }

    /// Writes a whole response with its length, and ends the exchange.
    private func send(_ response: WebResponse, to head: HTTPRequestHead) {
        guard let context else { return }
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        if !head.isKeepAlive || draining { headers.replaceOrAdd(name: "connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD, !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        request = .idle
        finishExchange(keepAlive: head.isKeepAlive)
    }

    /// After a response and its request have both ended: close if either side asked to.
    func finishExchange(keepAlive: Bool) {
        guard let context else { return }
        if !keepAlive || draining { context.close(promise: nil) }
    }

    static func split(_ uri: String) -> (path: String, query: String?) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, nil) }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }
}

internal import NIOCore
internal import NIOHTTP1

/// One gRPC-Web call on an HTTP/1.1 connection: its request state machine (the same as HTTP/2's), the running
/// call, and the response body in the making.
final class WebCall {
    let head: HTTPRequestHead
    let format: GRPCWebFormat
    let generation: Int
    let corsHeaders: [(name: String, value: String)]
    var machine: ServerStreamStateMachine
    var call: ServerCall?
    var body: GRPCWebResponseBody
    var headSent = false
    var answered = false
    var requestEnded = false
    var receivedBytes = 0
    var timers: [Scheduled<Void>] = []

    init(head: HTTPRequestHead, format: GRPCWebFormat, generation: Int, corsHeaders: [(name: String, value: String)], machine: ServerStreamStateMachine) {
        self.head = head
        self.format = format
        self.generation = generation
        self.corsHeaders = corsHeaders
        self.machine = machine
        self.body = GRPCWebResponseBody(format: format)
    }
}

extension WebConnectionHandler {
    /// Request headers a browser adds that are not call metadata.
    static let browserHeaders: Set<String> = [
        "accept", "accept-encoding", "accept-language", "cache-control", "connection", "content-length", "cookie",
        "dnt", "keep-alive", "origin", "pragma", "priority", "referer", "transfer-encoding", "upgrade-insecure-requests",
        "x-grpc-web", "x-user-agent",
    ]

    func startCall(_ head: HTTPRequestHead) {
        let format = GRPCWebFormat(contentType: head.headers.first(name: "content-type") ?? "")!
        let origin = head.headers.first(name: "origin")
        let configuration = starter.configuration
        let limits = ServerStreamStateMachine.Limits(
            maxHeaderListSize: configuration.connection.limits.maxHeaderListSize,
            maxReceiveMessageSize: configuration.connection.limits.maxReceiveMessageSize,
            enabledEncodings: configuration.connection.compression.enabledEncodings)
        var machine = ServerStreamStateMachine(limits: limits)
        machine.receiveHeader(name: ":method", value: "POST")
        machine.receiveHeader(name: ":path", value: head.uri)
        for field in head.headers {
            let name = field.name.lowercased()
            guard !Self.browserHeaders.contains(name), !name.hasPrefix("sec-") else { continue }
            machine.receiveHeader(name: name, value: field.value)
        }
        let web = WebCall(
            head: head, format: format, generation: generation, corsHeaders: cors.responseHeaders(origin: origin),
            machine: machine)
        request = .call(web)
        guard cors.allows(origin: origin, host: head.headers.first(name: "host")) else {
            answerTrailersOnly(web, status: Status(code: .permissionDenied, message: "origin \(origin ?? "") may not call this server"))
            return
        }
        switch web.machine.receiveHeadersComplete(endStream: false) {
        case .dispatch(let callHead):
            dispatch(callHead, web: web)
        case .reject(let httpStatus, let status):
            answerTrailersOnly(web, status: status, httpStatus: httpStatus)
        case .finishInbound, .fail, .none:
            answerTrailersOnly(web, status: Status(code: .internal, message: "unexpected request head"))
        }
    }

    private func dispatch(_ head: ServerStreamStateMachine.RequestHead, web: WebCall) {
        if let kind = starter.router.handler(for: head.path)?.kind, kind != .unary, kind != .serverStreaming {
            answerTrailersOnly(
                web, status: Status(code: .unimplemented, message: "gRPC-Web carries unary and server-streaming calls; \(head.path) streams requests"))
            return
        }
        let handler: ServiceRouter.Handler
        switch starter.admit(head) {
        case .refuse(let status):
            answerTrailersOnly(web, status: status)
            return
        case .overloaded:
            answerTrailersOnly(web, status: Status(code: .unavailable, message: "the server is at its limit of running calls"))
            return
        case .admitted(let admitted):
            handler = admitted
        }
        let loop = context!.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        let generation = web.generation
        let call = starter.makeCall(head, handler: handler, peer: peer) { request in
            loop.execute { bound.value.handle(request, generation: generation) }
        }
        web.call = call
        let budgets = starter.configuration.connection.budgets
        if let wait = budgets.firstMessageTimeout {
            web.timers.append(loop.scheduleTask(in: .nanoseconds(wait.nanosecondsClamped)) {
                guard bound.value.generation == generation, case .call(let web) = bound.value.request,
                    !web.requestEnded, web.receivedBytes == 0
                else { return }
                bound.value.failCall(web, status: Status(code: .resourceExhausted, message: "no request message within \(wait)"))
            })
        }
        if let timeout = head.timeout {
            web.timers.append(loop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
                guard bound.value.generation == generation, case .call(let web) = bound.value.request else { return }
                bound.value.failCall(web, status: Status(code: .deadlineExceeded, message: "deadline exceeded"))
            })
        }
        calls.start(call)
    }

    func receive(_ bytes: ByteBuffer, for web: WebCall) {
        guard !web.answered, let call = web.call else { return }
        web.receivedBytes += bytes.readableBytes
        // gRPC-Web calls take one request message; a body longer than one message of the largest size is refused.
        let limit = starter.configuration.connection.limits.maxReceiveMessageSize + GRPCMessageFramer.prefixSize
        guard web.receivedBytes <= (web.format == .text ? limit / 3 * 4 + 8 : limit) else {
            failCall(web, status: Status(code: .resourceExhausted, message: "request body exceeds the limit of one message of \(limit - GRPCMessageFramer.prefixSize) bytes"))
            return
        }
        let verdict = bytes.withUnsafeReadableBytes { web.machine.receiveData($0) }
        switch verdict {
        case .deliver(let messages): _ = call.bridge.deliver(messages, chunkBytes: bytes.readableBytes)
        case .fail(let status): failCall(web, status: status)
        case .drop: break
        }
    }

    func receiveEnd(for web: WebCall) {
        web.requestEnded = true
        if web.answered {
            request = .idle
            finishExchange(keepAlive: web.head.isKeepAlive)
            return
        }
        switch web.machine.receiveEndStream() {
        case .finishInbound: web.call?.bridge.finishInbound(.success(()))
        case .fail(let status): failCall(web, status: status)
        case .none: break
        }
    }
}

internal import NIOCore
import NIOSSL
import NIOTLS

/// Sits between a server connection's `NIOSSLServerHandler` and its HTTP/2 handler until the TLS handshake
/// is done, and closes the connection, with a report to the observer, when the handshake fails, takes longer
/// than the timeout, or completes without ALPN `h2`. Removes itself once the connection speaks `h2`.
///
/// No byte reaches nghttp2 before the handshake is complete (swift-nio-ssl passes none), so a refused
/// connection never started a session's work. Confined to the channel's event loop.
final class ServerTLSGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: Duration
    private let observer: any WireServerObserver
    /// HTTP/1.1 is served too: ALPN `http/1.1`, or none, passes (the bytes then tell the versions apart).
    private let acceptsHTTP1: Bool
    private var timer: Scheduled<Void>?
    private var settled = false

    init(timeout: Duration, observer: any WireServerObserver, acceptsHTTP1: Bool = false) {
        self.timeout = timeout
        self.observer = observer
        self.acceptsHTTP1 = acceptsHTTP1
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startTimer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startTimer(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func startTimer(context: ChannelHandlerContext) {
        guard timer == nil, !settled else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanosecondsClamped)) {
            let (gate, context) = loopBound.value
            gate.refuse(context: context, reason: .handshakeTimeout, message: "no TLS handshake within \(gate.timeout)")
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard !settled, let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard negotiated == TLSContextFactory.alpn || (acceptsHTTP1 && (negotiated == nil || negotiated == "http/1.1")) else {
            refuse(
                context: context, reason: .applicationProtocol,
                message: "the client did not negotiate ALPN h2 (got \(negotiated ?? "no protocol")); gRPC needs HTTP/2")
            return
        }
        settled = true
        timer?.cancel()
        context.fireUserInboundEventTriggered(event)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !settled else {
            context.fireErrorCaught(error)
            return
        }
        let (reason, message) = TLSFailure.describe(error, side: .server)
        refuse(context: context, reason: reason, message: message)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    private func refuse(context: ChannelHandlerContext, reason: ConnectionRefusal.Reason, message: String) {
        guard !settled else { return }
        settled = true
        timer?.cancel()
        let peer = context.channel.remoteAddress?.description ?? "unknown"
        observer.connectionRefused(ConnectionRefusal(peer: peer, reason: reason, message: message))
        context.close(promise: nil)
    }
}

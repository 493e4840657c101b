internal import NIOCore
import NIOSSL
import NIOTLS

/// Sits between a client connection's `NIOSSLClientHandler` and its HTTP/2 handler until the TLS handshake
/// is done, and settles ``handshake``: succeeded once the server agreed on ALPN `h2`, failed with an
/// ``RPCError`` (UNAVAILABLE) saying why otherwise, and the connection closed. Removes itself on success.
/// Confined to the channel's event loop.
final class ClientTLSGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let handshake: EventLoopPromise<Void>
    private let target: String
    private var settled = false

    init(handshake: EventLoopPromise<Void>, target: String) {
        self.handshake = handshake
        self.target = target
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard !settled, let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard negotiated == TLSContextFactory.alpn else {
            fail(context: context, "the server did not agree on ALPN h2 (got \(negotiated ?? "no protocol"))")
            return
        }
        settled = true
        handshake.succeed()
        context.fireUserInboundEventTriggered(event)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !settled else {
            context.fireErrorCaught(error)
            return
        }
        fail(context: context, TLSFailure.describe(error, side: .client).message)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !settled {
            settled = true
            handshake.fail(
                RPCError(
                    code: .unavailable,
                    message: "TLS to \(target): the connection closed during the handshake (not a TLS port?)"))
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if !settled {
            settled = true
            handshake.fail(RPCError(code: .unavailable, message: "TLS to \(target): the connection closed"))
        }
    }

    private func fail(context: ChannelHandlerContext, _ message: String) {
        settled = true
        handshake.fail(RPCError(code: .unavailable, message: "TLS to \(target): \(message)"))
        context.close(promise: nil)
    }
}

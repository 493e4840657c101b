internal import NIOCore

/// Tells HTTP/2 with prior knowledge from HTTP/1.1 by a connection's first bytes, then steps aside.
///
/// An HTTP/2 client's first 24 bytes are the fixed connection preface (RFC 9113 §3.4); an HTTP/1.1 request line
/// differs from it by the first or, for a `PRI` method, a later byte. The sniffer holds what arrives until the
/// bytes decide, installs the chosen handlers behind itself, hands them the held bytes and removes itself.
final class HTTPVersionSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    enum Version: Equatable { case http2, http1 }

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private var held: ByteBuffer?
    private var timer: Scheduled<Void>?
    private let timeout: TimeAmount
    private let configure: (Version, ChannelPipeline.SynchronousOperations) throws -> Void

    /// - Parameters:
    ///   - timeout: how long a connection may stay silent before its first bytes decide; then it is closed.
    ///   - configure: adds the handlers for the version found at the end of the pipeline.
    init(timeout: TimeAmount, configure: @escaping (Version, ChannelPipeline.SynchronousOperations) throws -> Void) {
        self.timeout = timeout
        self.configure = configure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    /// The version `bytes` (a connection's first bytes) show, or nil until more arrive.
    static func version(of bytes: ByteBufferView) -> Version? {
        for (index, byte) in bytes.enumerated() {
            if index == preface.count { break }
            if byte != preface[index] { return .http1 }
        }
        return bytes.count >= preface.count ? .http2 : nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if var held = held.take() {
            held.writeBuffer(&bytes)
            bytes = held
        }
        guard let version = Self.version(of: bytes.readableBytesView) else {
            held = bytes
            return
        }
        do {
            try configure(version, context.pipeline.syncOperations)
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(wrapInboundOut(bytes))
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

extension Optional {
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}

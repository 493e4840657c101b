internal import NIOCore

/// The one request of a unary or server-streaming call, encoded, compressed and ready to frame before the call
/// starts, so that the call's start carries it (``StreamBridge/preload(_:)``).
struct PreloadedRequest: Sendable {
    let bytes: [UInt8]
    let compressed: Bool

    /// Encodes `message`, compressed with `encoding` when there is one (as the call's ``MessageWriter`` would).
    /// - Throws: ``RPCError`` `internal` when the message cannot be encoded or compressed.
    init<Message>(_ message: Message, codec: MessageCodec<Message>, encoding: MessageEncoding?) throws {
        let encoded: [UInt8]
        do {
            encoded = try codec.serialize(message)
        } catch {
            throw MessageWriter<Message>.encodingFailed(error)
        }
        (bytes, compressed) = try OutboundMessage.pack(encoded, encoding: encoding, compressed: true)
    }

    /// Frames the message into `buffer`.
    func append(to buffer: inout ByteBuffer) {
        GRPCMessageFramer.append(bytes, compressed: compressed, to: &buffer)
    }
}

internal import NIOCore

/// Sends messages on one call.
///
/// ``write(_:)`` returns once the message is queued; it suspends while the
/// call's outbound buffer is full, until the peer takes the bytes. It throws
/// ``RPCError`` once the call can no longer send (reset, deadline, closed).
///
/// When the call has an encoding (``CallOptions/compression`` on a client,
/// ``ServerContext/setResponseEncoding(_:)`` or the server's
/// ``WireServer/Configuration/responseCompression`` on a server), messages are
/// compressed with it; ``write(_:compressed:)`` chooses per message.
public struct MessageWriter<Message>: Sendable {
    let bridge: StreamBridge
    let codec: MessageCodec<Message>

    /// Queues one message, compressed if the call has an encoding.
    public func write(_ message: Message) async throws {
        try await write(message, compressed: true)
    }

    /// Queues one message, choosing whether it is compressed.
    ///
    /// - Parameters:
    ///   - message: the message.
    ///   - compressed: false sends it uncompressed (flag 0) even when the call has an encoding; true compresses
    ///     it with the call's encoding, or sends it uncompressed when the call has none.
    /// - Throws: ``RPCError`` once the call can no longer send.
    public func write(_ message: Message, compressed: Bool) async throws {
        var bytes: [UInt8]
        do {
            bytes = try codec.serialize(message)
        } catch {
            throw RPCError(code: .internal, message: "could not encode message: \(error)")
        }
        // The first message fixes the encoding (the response headers name it).
        let encoding = bridge.outboundCompression.fix()
        var flag = false
        if compressed, let encoding {
            do {
                bytes = try Zlib.compress(bytes, encoding: encoding)
            } catch {
                throw RPCError(code: .internal, message: "could not compress message: \(error)")
            }
            flag = true
        }
        try await bridge.write { [bytes] buffer in GRPCMessageFramer.append(bytes, compressed: flag, to: &buffer) }
    }

    /// Queues each message in order.
    public func write(contentsOf messages: some Sequence<Message>) async throws {
        for message in messages { try await write(message) }
    }
}

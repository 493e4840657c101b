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
        let (bytes, flag) = try encode(message, compressed: compressed)
        try await bridge.write { [bytes] buffer in GRPCMessageFramer.append(bytes, compressed: flag, to: &buffer) }
    }

    /// Queues each message in order, compressed if the call has an encoding.
    ///
    /// The messages are framed into the call's buffer in one step (one lock, one wake of the event loop),
    /// so a batch leaves in as few DATA frames as flow control allows; the call then waits for room once.
    public func write(contentsOf messages: some Sequence<Message>) async throws {
        var framed: [(bytes: [UInt8], compressed: Bool)] = []
        for message in messages { framed.append(try encode(message, compressed: true)) }
        guard !framed.isEmpty else { return }
        try await bridge.write { [framed] buffer in
            for (bytes, flag) in framed { GRPCMessageFramer.append(bytes, compressed: flag, to: &buffer) }
        }
    }

    /// The message's bytes, compressed when asked and the call has an encoding, and its compressed flag.
    private func encode(_ message: Message, compressed: Bool) throws -> ([UInt8], Bool) {
        var bytes: [UInt8]
        do {
            bytes = try codec.serialize(message)
        } catch {
            throw RPCError(code: .internal, message: "could not encode message: \(error)")
        }
        // The first message fixes the encoding (the response headers name it).
        let encoding = bridge.outboundCompression.fix()
        guard compressed, let encoding else { return (bytes, false) }
        do {
            bytes = try Zlib.compress(bytes, encoding: encoding)
        } catch {
            throw RPCError(code: .internal, message: "could not compress message: \(error)")
        }
        return (bytes, true)
    }
}

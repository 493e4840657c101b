internal import NIOCore

/// Sends messages on one call.
///
/// ``write(_:)`` returns once the message is queued; it suspends while the
/// call's outbound buffer is full, until the peer takes the bytes. It throws
/// ``RPCError`` once the call can no longer send (reset, deadline, closed).
public struct MessageWriter<Message>: Sendable {
    let bridge: StreamBridge
    let codec: MessageCodec<Message>

    /// Queues one message.
    public func write(_ message: Message) async throws {
        let bytes: [UInt8]
        do {
            bytes = try codec.serialize(message)
        } catch {
            throw RPCError(code: .internal, message: "could not encode message: \(error)")
        }
        try await bridge.write { buffer in GRPCMessageFramer.append(bytes, to: &buffer) }
    }

    /// Queues each message in order.
    public func write(contentsOf messages: some Sequence<Message>) async throws {
        for message in messages { try await write(message) }
    }
}

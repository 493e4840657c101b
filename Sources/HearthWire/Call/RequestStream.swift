internal import NIOCore

/// The messages a peer sends on one call, in order.
///
/// Iterating pulls messages off the stream; flow-control credit goes back to
/// the sender only as messages are taken, so a slow reader slows its sender.
/// Iteration throws ``RPCError`` if the stream fails (reset, deadline,
/// malformed or oversized message).
public struct RequestStream<Message>: AsyncSequence, Sendable {
    public typealias Element = Message

    let bridge: StreamBridge
    let codec: MessageCodec<Message>

    public struct AsyncIterator: AsyncIteratorProtocol {
        let bridge: StreamBridge
        let codec: MessageCodec<Message>

        public mutating func next() async throws -> Message? {
            guard let bytes = try await bridge.nextInbound() else { return nil }
            do {
                return try codec.deserialize(bytes)
            } catch let error as RPCError {
                throw error
            } catch {
                throw RPCError(code: .internal, message: "could not decode message: \(error)")
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(bridge: bridge, codec: codec)
    }
}

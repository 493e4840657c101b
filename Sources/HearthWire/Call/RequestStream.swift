internal import NIOCore

/// The messages a peer sends on one call, in order.
///
/// Iterating pulls messages off the stream; flow-control credit goes back to
/// the sender only as messages are taken, so a slow reader slows its sender.
/// Iteration throws ``RPCError`` if the stream fails (reset, deadline,
/// malformed, oversized or undecompressable message).
public struct RequestStream<Message>: AsyncSequence, Sendable {
    public typealias Element = Message

    let bridge: StreamBridge
    let codec: MessageCodec<Message>

    public struct AsyncIterator: AsyncIteratorProtocol {
        let bridge: StreamBridge
        let codec: MessageCodec<Message>

        public mutating func next() async throws -> Message? {
            try await nextReceived()?.message
        }

        /// The next message with how it travelled (compressed or not), or nil at the end.
        /// - Throws: ``RPCError`` as ``next()`` does.
        public mutating func nextReceived() async throws -> ReceivedMessage<Message>? {
            guard let inbound = try await bridge.nextInbound() else { return nil }
            return try decode(inbound)
        }

        /// The next message if it has already arrived, without waiting; nil when none has (the stream may
        /// still be open: ``next()`` waits for the next message and reports the end).
        ///
        /// A reader that applies messages in batches takes what is there after each ``next()``:
        ///
        /// ```swift
        /// while let first = try await iterator.next() {
        ///     var batch = [first]
        ///     while let more = try iterator.nextIfArrived() { batch.append(more) }
        /// }
        /// ```
        /// - Throws: ``RPCError`` when the message cannot be decompressed or decoded.
        public mutating func nextIfArrived() throws -> Message? {
            guard let inbound = bridge.nextInboundIfArrived() else { return nil }
            return try decode(inbound).message
        }

        private func decode(_ inbound: InboundMessage) throws -> ReceivedMessage<Message> {
            try inbound.decoded(with: codec, limit: bridge.limits.maxReceiveMessageSize)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(bridge: bridge, codec: codec)
    }
}

extension InboundMessage {
    /// The message decompressed (under `limit`) and decoded: on the reader's thread, as it takes it, never
    /// on the I/O thread while it waits.
    /// - Throws: ``RPCError`` when it cannot be decompressed or decoded.
    func decoded<Message>(with codec: MessageCodec<Message>, limit: Int) throws -> ReceivedMessage<Message> {
        let bytes = try payload(limit: limit)
        do {
            return ReceivedMessage(message: try codec.deserialize(bytes), compressed: compressed)
        } catch let error as RPCError {
            throw error
        } catch {
            throw RPCError(code: .internal, message: "could not decode message: \(error)")
        }
    }
}

/// A received message and whether its compressed flag was set on the wire.
public struct ReceivedMessage<Message> {
    /// The message, decompressed and decoded.
    public var message: Message
    /// Whether it travelled compressed (the gRPC message flag was 1).
    public var compressed: Bool
}

extension ReceivedMessage: Sendable where Message: Sendable {}

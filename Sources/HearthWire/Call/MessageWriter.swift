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
    @usableFromInline let codec: MessageCodec<Message>

    /// Queues one message, compressed if the call has an encoding.
    ///
    /// Inlinable on purpose: inlined into a handler's loop, it is specialized for the message type and its
    /// own executor check merges with the caller's, so a message that finds room in the buffer costs no
    /// suspension point and no executor switch. Only a full buffer awaits.
    @inlinable
    public func write(_ message: Message) async throws {
        if try queue(serialize(message), compressed: true) { try await waitForRoom() }
    }

    /// Queues one message, choosing whether it is compressed.
    ///
    /// - Parameters:
    ///   - message: the message.
    ///   - compressed: false sends it uncompressed (flag 0) even when the call has an encoding; true compresses
    ///     it with the call's encoding, or sends it uncompressed when the call has none.
    /// - Throws: ``RPCError`` once the call can no longer send.
    @inlinable
    public func write(_ message: Message, compressed: Bool) async throws {
        if try queue(serialize(message), compressed: compressed) { try await waitForRoom() }
    }

    /// The message's encoding, or INTERNAL when the codec cannot encode it.
    @inlinable
    func serialize(_ message: Message) throws -> [UInt8] {
        do {
            return try codec.serialize(message)
        } catch {
            throw Self.encodingFailed(error)
        }
    }

    @usableFromInline
    static func encodingFailed(_ error: any Error) -> RPCError {
        RPCError(code: .internal, message: "could not encode message: \(error)")
    }

    /// Frames one encoded message into the call's buffer (compressing it when asked and the call has an
    /// encoding) without suspending.
    /// - Returns: true when the buffer is full and the writer must ``waitForRoom()``.
    @usableFromInline
    func queue(_ bytes: [UInt8], compressed: Bool) throws -> Bool {
        let (bytes, flag) = try compress(bytes, compressed: compressed)
        return try bridge.append { buffer in GRPCMessageFramer.append(bytes, compressed: flag, to: &buffer) }
    }

    /// Suspends until the peer has taken the call's buffer down to its low watermark.
    @usableFromInline
    func waitForRoom() async throws {
        try await bridge.waitForOutboundRoom()
    }

    /// Queues each message in order, compressed if the call has an encoding.
    ///
    /// The messages are framed into the call's buffer in one step (one lock, one wake of the event loop),
    /// so a batch leaves in as few DATA frames as flow control allows; the call then waits for room once.
    public func write(contentsOf messages: some Sequence<Message>) async throws {
        var framed: [(bytes: [UInt8], compressed: Bool)] = []
        for message in messages { framed.append(try compress(serialize(message), compressed: true)) }
        guard !framed.isEmpty else { return }
        try await bridge.write { [framed] buffer in
            for (bytes, flag) in framed { GRPCMessageFramer.append(bytes, compressed: flag, to: &buffer) }
        }
    }

    /// The bytes to send and their compressed flag: `bytes` compressed with the call's encoding when asked
    /// and the call has one.
    private func compress(_ bytes: [UInt8], compressed: Bool) throws -> ([UInt8], Bool) {
        // The first message fixes the encoding (the response headers name it).
        try OutboundMessage.pack(bytes, encoding: bridge.outboundCompression.fix(), compressed: compressed)
    }
}

/// How an outbound message's bytes are packed, for ``MessageWriter`` and for a call's preloaded request.
enum OutboundMessage {
    /// `bytes` compressed with `encoding` when `compressed` asks for it and there is an encoding, with the
    /// flag to frame them with.
    /// - Throws: ``RPCError`` `internal` when compression fails.
    static func pack(_ bytes: [UInt8], encoding: MessageEncoding?, compressed: Bool) throws(RPCError) -> ([UInt8], Bool) {
        guard compressed, let encoding else { return (bytes, false) }
        do {
            return (try Zlib.compress(bytes, encoding: encoding), true)
        } catch {
            throw RPCError(code: .internal, message: "could not compress message: \(error)")
        }
    }
}

internal import NIOCore

/// One received message as it travelled: its bytes, compressed or not, and the stream's encoding when the
/// compressed flag was set.
///
/// Messages wait in their stream's bridge compressed and are decompressed only when the reader takes them
/// (``payload(limit:)``): the memory a stream holds stays bounded by its flow-control window, whatever the
/// compression ratio, and a decompression bomb costs one message's limit, once, in the reader's task.
struct InboundMessage: Sendable, Equatable {
    /// The bytes as received (after the 5-byte prefix).
    var bytes: ByteBuffer
    /// The encoding to decompress `bytes` with; nil when the compressed flag was not set.
    var encoding: MessageEncoding?

    init(_ bytes: ByteBuffer, encoding: MessageEncoding? = nil) {
        self.bytes = bytes
        self.encoding = encoding
    }

    /// Whether the compressed flag was set.
    var compressed: Bool { encoding != nil }

    /// The message's bytes, decompressed if they travelled compressed.
    /// - Parameter limit: the receive limit, applied to the decompressed size.
    /// - Throws: ``RPCError`` RESOURCE_EXHAUSTED past the limit, INTERNAL for data that does not decompress.
    func payload(limit: Int) throws(RPCError) -> ByteBuffer {
        guard let encoding else { return bytes }
        do {
            return try Zlib.decompress(bytes, encoding: encoding, limit: limit)
        } catch {
            switch error {
            case .tooLarge(let limit):
                throw RPCError(code: .resourceExhausted, message: "message decompresses to more than the limit of \(limit) bytes")
            case .corrupt(let why), .unavailable(let why):
                throw RPCError(code: .internal, message: "could not decompress a \(encoding) message: \(why)")
            }
        }
    }
}

/// Checks each deframed message's compressed flag against its stream's `grpc-encoding`. Pure.
struct InboundDecoder {
    /// The stream's encoding; nil when it named none (or `identity`).
    var encoding: MessageEncoding?

    /// - Returns: the message, still compressed if it was, or the status that must end the call: INTERNAL
    ///   for a compressed flag on a stream without an encoding, as the gRPC spec says.
    func decode(_ frame: GRPCMessageDeframer.Frame, peer: String) -> Decoded {
        guard frame.compressed else { return .message(InboundMessage(frame.bytes)) }
        guard let encoding else {
            return .fail(Status(code: .internal, message: "compressed \(peer) without grpc-encoding"))
        }
        return .message(InboundMessage(frame.bytes, encoding: encoding))
    }

    enum Decoded: Equatable {
        case message(InboundMessage)
        case fail(Status)
    }
}

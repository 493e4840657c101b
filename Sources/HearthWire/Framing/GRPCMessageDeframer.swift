internal import NIOCore

/// Cuts a stream of DATA bytes into gRPC messages.
///
/// A message is a 1-byte flag (0 = plain, 1 = compressed), a 4-byte
/// big-endian length and that many bytes. DATA frame boundaries are unrelated
/// to message boundaries: a message may span frames and a frame may hold many
/// messages, so bytes are appended as they come and complete messages taken
/// out with ``next()``.
///
/// The length is checked against the limit as soon as the 5-byte prefix is
/// known, before any byte of an oversized body is kept.
struct GRPCMessageDeframer {
    enum Failure: Error, Equatable {
        /// The prefix announced more bytes than the receive limit.
        case messageTooLarge(length: Int, limit: Int)
        /// The compressed flag was set but the call negotiated no encoding.
        case compressedWithoutEncoding
        /// The flag byte was neither 0 nor 1.
        case invalidFlag(UInt8)
    }

    private var buffer: ByteBuffer
    private let maxMessageSize: Int
    /// The announced length of the message being read, once its prefix is in.
    private var pendingLength: Int?

    init(maxMessageSize: Int) {
        self.buffer = ByteBuffer()
        self.maxMessageSize = maxMessageSize
    }

    /// Whether bytes of an incomplete message are held.
    var hasPartialMessage: Bool { pendingLength != nil || buffer.readableBytes > 0 }

    /// Bytes held for the message being read.
    var bufferedBytes: Int { buffer.readableBytes }

    /// Memory held for an incomplete message: the buffer's whole allocation (it grows by doubling), 0 when
    /// no message is being read.
    var heldMemory: Int { hasPartialMessage ? buffer.capacity : 0 }

    /// Appends received bytes.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if buffer.readableBytes == 0 {
            // Start a fresh buffer so slices handed out earlier keep their
            // storage without forcing a copy on the next write.
            buffer = ByteBufferAllocator().buffer(capacity: max(bytes.count, 256))
        }
        buffer.writeBytes(bytes)
    }

    /// Appends received bytes.
    mutating func append(_ bytes: ByteBuffer) {
        bytes.withUnsafeReadableBytes { append($0) }
    }

    /// The next complete message, or nil when more bytes are needed.
    /// - Throws: ``Failure`` when the stream can no longer be read.
    mutating func next() throws(Failure) -> ByteBuffer? {
        if pendingLength == nil {
            guard buffer.readableBytes >= 5 else { return nil }
            let flag = buffer.readInteger(as: UInt8.self)!
            let length = Int(buffer.readInteger(endianness: .big, as: UInt32.self)!)
            switch flag {
            case 0: break
            case 1: throw .compressedWithoutEncoding
            default: throw .invalidFlag(flag)
            }
            guard length <= maxMessageSize else {
                throw .messageTooLarge(length: length, limit: maxMessageSize)
            }
            pendingLength = length
        }
        guard let length = pendingLength, buffer.readableBytes >= length else { return nil }
        pendingLength = nil
        return buffer.readSlice(length: length)!
    }
}

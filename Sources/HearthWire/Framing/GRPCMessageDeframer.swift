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
        /// The compressed flag was set on a stream that does not take it.
        case compressedWithoutEncoding
        /// The flag byte was neither 0 nor 1.
        case invalidFlag(UInt8)
    }

    /// One message's bytes as they travelled, and its compressed flag.
    struct Frame: Equatable {
        var bytes: ByteBuffer
        var compressed: Bool
    }

    private var buffer: ByteBuffer
    private let maxMessageSize: Int
    private let allowsCompressed: Bool
    /// The announced length and flag of the message being read, once its prefix is in.
    private var pending: (length: Int, compressed: Bool)?
    /// Whether a message was sliced out of `buffer` since it was allocated: its storage is then shared, and
    /// writing more into it would copy the whole allocation first.
    private var sliced = false

    /// - Parameters:
    ///   - maxMessageSize: the largest length a prefix may announce.
    ///   - allowsCompressed: whether flag 1 is handed on (to be decompressed by the caller) rather than refused.
    init(maxMessageSize: Int, allowsCompressed: Bool = false) {
        self.buffer = ByteBuffer()
        self.maxMessageSize = maxMessageSize
        self.allowsCompressed = allowsCompressed
    }

    /// Whether bytes of an incomplete message are held.
    var hasPartialMessage: Bool { pending != nil || buffer.readableBytes > 0 }

    /// Bytes held for the message being read.
    var bufferedBytes: Int { buffer.readableBytes }

    /// Memory held for an incomplete message: the buffer's whole allocation (it grows by doubling), 0 when
    /// no message is being read.
    var heldMemory: Int { hasPartialMessage ? buffer.capacity : 0 }

    /// Where the bytes held for the message being read start. Once the message's prefix is read, its buffer
    /// is sized for all of it and this stays put while the rest is appended, unless something copies the
    /// buffer (tests check that the state machines holding a deframer do not); it moves at most once before,
    /// when the prefix announces more than the first buffer holds.
    var heldBytesAddress: UnsafeRawPointer? { buffer.withUnsafeReadableBytes { $0.baseAddress } }

    /// Appends received bytes.
    ///
    /// Each byte is copied once, whatever the size of the messages: a message whose prefix is in gets room
    /// for all of it at once (a 256 KB watch response arriving in 16 KB DATA frames used to grow the buffer
    /// by doubling, copying what it held at each step), and the bytes left after a message handed out move
    /// to a fresh buffer instead of making the next write copy the shared allocation whole (together a
    /// seventh of a client process's CPU while ten clients joined a 100,000-device home).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        let held = buffer.readableBytes
        // What the message being read still lacks, once its prefix has told its length.
        let wanted = pending.map { $0.length - held } ?? 0
        if held == 0 || sliced {
            // Start a fresh buffer so slices handed out earlier keep their storage; only the bytes not yet
            // handed out come along.
            var fresh = ByteBufferAllocator().buffer(capacity: max(held + bytes.count, held + wanted, 256))
            fresh.writeBuffer(&buffer)
            buffer = fresh
            sliced = false
        } else if wanted > buffer.writableBytes {
            buffer.reserveCapacity(minimumWritableBytes: wanted)
        }
        buffer.writeBytes(bytes)
    }

    /// Appends received bytes.
    mutating func append(_ bytes: ByteBuffer) {
        bytes.withUnsafeReadableBytes { append($0) }
    }

    /// The next complete message's bytes, or nil when more bytes are needed.
    /// - Throws: ``Failure`` when the stream can no longer be read.
    mutating func next() throws(Failure) -> ByteBuffer? {
        try nextFrame()?.bytes
    }

    /// The next complete message with its flag, or nil when more bytes are needed.
    /// - Throws: ``Failure`` when the stream can no longer be read.
    mutating func nextFrame() throws(Failure) -> Frame? {
        if pending == nil {
            guard buffer.readableBytes >= 5 else { return nil }
            let flag = buffer.readInteger(as: UInt8.self)!
            let length = Int(buffer.readInteger(endianness: .big, as: UInt32.self)!)
            switch flag {
            case 0: break
            case 1 where allowsCompressed: break
            case 1: throw .compressedWithoutEncoding
            default: throw .invalidFlag(flag)
            }
            guard length <= maxMessageSize else {
                throw .messageTooLarge(length: length, limit: maxMessageSize)
            }
            pending = (length, flag == 1)
        }
        guard let (length, compressed) = pending, buffer.readableBytes >= length else { return nil }
        pending = nil
        sliced = true
        return Frame(bytes: buffer.readSlice(length: length)!, compressed: compressed)
    }
}

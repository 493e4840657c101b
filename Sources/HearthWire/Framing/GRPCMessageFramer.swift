internal import NIOCore

/// Writes gRPC length-prefixed messages: a flag byte (0 plain, 1 compressed), a
/// 4-byte big-endian length, then the message bytes.
enum GRPCMessageFramer {
    /// The size of the prefix in front of every message.
    static let prefixSize = 5

    /// Appends one framed message to `buffer`.
    ///
    /// Contiguous bytes (the common case: an encoded message) are written in one step, prefix and body, so
    /// the buffer checks its uniqueness and capacity once per message instead of three times.
    static func append(_ message: some Collection<UInt8>, compressed: Bool = false, to buffer: inout ByteBuffer) {
        let written: Void? = message.withContiguousStorageIfAvailable { body in
            let total = prefixSize + body.count
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: total) { out in
                out[0] = compressed ? 1 : 0
                out.storeBytes(of: UInt32(body.count).bigEndian, toByteOffset: 1, as: UInt32.self)
                if let source = body.baseAddress, body.count > 0 {
                    (out.baseAddress! + prefixSize).copyMemory(from: source, byteCount: body.count)
                }
                return total
            }
        }
        if written != nil { return }
        buffer.writeInteger(UInt8(compressed ? 1 : 0))
        buffer.writeInteger(UInt32(message.count), endianness: .big)
        buffer.writeBytes(message)
    }
}

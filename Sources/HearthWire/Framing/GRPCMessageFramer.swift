internal import NIOCore

/// Writes gRPC length-prefixed messages: a flag byte (0 plain, 1 compressed), a
/// 4-byte big-endian length, then the message bytes.
enum GRPCMessageFramer {
    /// The size of the prefix in front of every message.
    static let prefixSize = 5

    /// Appends one framed message to `buffer`.
    ///
    /// Prefix and body are written in one step, so the buffer checks its uniqueness and capacity once per
    /// message instead of three times. A collection without contiguous storage is copied into an array first.
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
        if written == nil { append(Array(message), compressed: compressed, to: &buffer) }
    }
}

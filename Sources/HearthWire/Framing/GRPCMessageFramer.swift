internal import NIOCore

/// Writes gRPC length-prefixed messages: a flag byte (0 plain, 1 compressed), a
/// 4-byte big-endian length, then the message bytes.
enum GRPCMessageFramer {
    /// The size of the prefix in front of every message.
    static let prefixSize = 5

    /// Appends one framed message to `buffer`.
    static func append(_ message: some Collection<UInt8>, compressed: Bool = false, to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(compressed ? 1 : 0))
        buffer.writeInteger(UInt32(message.count), endianness: .big)
        buffer.writeBytes(message)
    }
}

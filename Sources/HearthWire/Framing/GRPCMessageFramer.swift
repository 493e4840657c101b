internal import NIOCore

/// Writes gRPC length-prefixed messages: flag byte 0 (uncompressed), a
/// 4-byte big-endian length, then the message bytes.
enum GRPCMessageFramer {
    /// The size of the prefix in front of every message.
    static let prefixSize = 5

    /// Appends one framed message to `buffer`.
    static func append(_ message: some Collection<UInt8>, to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(0))
        buffer.writeInteger(UInt32(message.count), endianness: .big)
        buffer.writeBytes(message)
    }
}

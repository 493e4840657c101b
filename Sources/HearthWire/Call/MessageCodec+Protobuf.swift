public import SwiftProtobuf
internal import NIOCore

/// Nested messages a peer's message may hold. Decoding recurses once per level, so this bounds the stack
/// a message can take; Hearth's deepest real messages (a `Value` list of structs inside a report) use
/// fewer than 16. swift-protobuf's own default is 100.
public let protobufDepthLimit = 64

extension MessageCodec where Message: SwiftProtobuf.Message {
    /// The protobuf binary encoding of `Message`. Decoding stops at ``protobufDepthLimit`` nested messages
    /// with INVALID_ARGUMENT.
    public static var protobuf: MessageCodec<Message> {
        MessageCodec(
            serialize: { message in try message.serializedBytes() },
            deserialize: { buffer in
                var options = BinaryDecodingOptions()
                options.messageDepthLimit = protobufDepthLimit
                do {
                    // Read from the buffer's own bytes: a `Data` around them cost an allocation and a
                    // bridged `withUnsafeBytes`, about 3 µs of every small message's 8.
                    return try Message(serializedBytes: ProtobufBytes(buffer), options: options)
                } catch BinaryDecodingError.messageDepthLimit {
                    throw RPCError(
                        code: .invalidArgument,
                        message: "message nests more than the limit of \(protobufDepthLimit) messages")
                }
            }
        )
    }
}

extension MethodDescriptor where Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message {
    /// Creates a descriptor whose messages use the protobuf binary encoding.
    public init(service: String, method: String, kind: CallKind) {
        self.init(
            service: service, method: method, kind: kind,
            requestCodec: .protobuf, responseCodec: .protobuf)
    }
}

/// A `ByteBuffer`'s readable bytes as swift-protobuf reads and writes them.
struct ProtobufBytes: SwiftProtobufContiguousBytes {
    var buffer: ByteBuffer

    init(_ buffer: ByteBuffer) { self.buffer = buffer }
    init(repeating: UInt8, count: Int) { buffer = ByteBuffer(repeating: repeating, count: count) }
    init<S: Sequence>(_ sequence: S) where S.Element == UInt8 { buffer = ByteBuffer(bytes: sequence) }
    var count: Int { buffer.readableBytes }
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeReadableBytes(body)
    }
    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeMutableReadableBytes(body)
    }
}

import Foundation
public import SwiftProtobuf
public import NIOCore

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
                try buffer.withUnsafeReadableBytes { raw in
                    guard let base = raw.baseAddress, raw.count > 0 else { return Message() }
                    // The Data borrows the buffer's bytes only for the call.
                    let data = Data(
                        bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count,
                        deallocator: .none)
                    var options = BinaryDecodingOptions()
                    options.messageDepthLimit = protobufDepthLimit
                    do {
                        return try Message(serializedBytes: data, options: options)
                    } catch BinaryDecodingError.messageDepthLimit {
                        throw RPCError(
                            code: .invalidArgument,
                            message: "message nests more than the limit of \(protobufDepthLimit) messages")
                    }
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

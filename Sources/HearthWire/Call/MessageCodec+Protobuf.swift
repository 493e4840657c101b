import Foundation
public import SwiftProtobuf
public import NIOCore

extension MessageCodec where Message: SwiftProtobuf.Message {
    /// The protobuf binary encoding of `Message`.
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
                    return try Message(serializedBytes: data)
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

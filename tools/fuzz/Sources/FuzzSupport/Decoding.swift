public import HearthWire
public import SwiftProtobuf

extension BinaryDecodingOptions {
    /// How the hub decodes what a peer sends (`MessageCodec.protobuf`): at most ``protobufDepthLimit``
    /// nested messages.
    public static var hub: BinaryDecodingOptions {
        var options = BinaryDecodingOptions()
        options.messageDepthLimit = protobufDepthLimit
        return options
    }
}

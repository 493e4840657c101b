/// Damaged copies of an encoded message, for readers that must refuse or read them as swift-protobuf does:
/// every truncation, and the message with each byte replaced in turn by 0x00, 0xFF, itself with the top bit
/// flipped, itself plus one, and each of `keys` (field keys of the message's kind, to turn a byte into
/// another field or wire type).
func damagedVariants(of bytes: [UInt8], keys: [UInt8]) -> [[UInt8]] {
    var variants: [[UInt8]] = (0..<bytes.count).map { Array(bytes[..<$0]) }
    for i in bytes.indices {
        for replacement in [0x00, 0xFF, bytes[i] ^ 0x80, bytes[i] &+ 1] + keys {
            var copy = bytes
            copy[i] = replacement
            variants.append(copy)
        }
    }
    return variants
}

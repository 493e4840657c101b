/// Percent-encoding of `grpc-message`, as the gRPC HTTP/2 protocol defines it:
/// bytes outside printable ASCII (0x20...0x7E) and `%` itself are sent as
/// `%XX` of their UTF-8 bytes.
enum PercentEncoding {
    static func encode(_ message: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(message.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in message.utf8 {
            if byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "%") {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes leniently: a malformed escape is kept as it is, as gRPC
    /// asks of receivers, and invalid UTF-8 becomes replacement characters.
    static func decode(_ message: String) -> String {
        let bytes = Array(message.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return message }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
                let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2])
            {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

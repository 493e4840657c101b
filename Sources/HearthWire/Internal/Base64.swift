import Foundation

/// Base64 for `-bin` metadata. gRPC senders may omit padding, which
/// Foundation's decoder requires, so decoding restores it first.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        var s = Data(bytes).base64EncodedString()
        while s.hasSuffix("=") { s.removeLast() }
        return s
    }

    static func decode(_ string: String) -> [UInt8]? {
        var s = string
        let remainder = s.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { s += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }
}

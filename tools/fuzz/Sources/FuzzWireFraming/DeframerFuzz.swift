import FuzzSupport
import NIOCore

@testable import HearthWire

/// ``GRPCMessageDeframer`` fed the input in chunks, compared with a plain reading of the same bytes.
///
/// Input: the limit (16 bits), then chunks, each a length byte and that many bytes. The reference reads the
/// concatenation front to back (flag, 4-byte big-endian length, body) and must agree with the deframer on
/// every message and on where, and why, reading stops.
enum DeframerFuzz {
    static func run(_ input: inout FuzzInput) {
        let limit = Int(input.uint16())
        var deframer = GRPCMessageDeframer(maxMessageSize: limit)
        var all: [UInt8] = []
        var got: [[UInt8]] = []
        var failure: GRPCMessageDeframer.Failure?
        reading: while !input.isEmpty {
            let chunk = Array(input.shortRun())
            all += chunk
            chunk.withUnsafeBytes { deframer.append($0) }
            do {
                while let message = try deframer.next() { got.append(Array(message.readableBytesView)) }
            } catch {
                failure = error
                break reading
            }
        }
        let (expected, expectedFailure, consumed) = reference(all, limit: limit)
        fuzzCheck(got == expected, "deframer gave \(got.count) messages, the plain reading \(expected.count)")
        fuzzCheck(failure == expectedFailure, "deframer failed with \(String(describing: failure)), the plain reading with \(String(describing: expectedFailure))")
        if failure == nil {
            fuzzCheck(
                deframer.hasPartialMessage == (consumed < all.count),
                "hasPartialMessage is \(deframer.hasPartialMessage) with \(all.count - consumed) bytes left over")
        }
    }

    /// The messages in `bytes`, the failure that stops reading (if any), and the bytes read by whole messages.
    static func reference(_ bytes: [UInt8], limit: Int) -> ([[UInt8]], GRPCMessageDeframer.Failure?, Int) {
        var messages: [[UInt8]] = []
        var i = 0
        while bytes.count - i >= 5 {
            let flag = bytes[i]
            let length = bytes[i + 1..<i + 5].reduce(0) { $0 << 8 | Int($1) }
            switch flag {
            case 0: break
            case 1: return (messages, .compressedWithoutEncoding, i)
            default: return (messages, .invalidFlag(flag), i)
            }
            if length > limit { return (messages, .messageTooLarge(length: length, limit: limit), i) }
            guard bytes.count - i - 5 >= length else { break }
            messages.append(Array(bytes[i + 5..<i + 5 + length]))
            i += 5 + length
        }
        return (messages, nil, i)
    }
}

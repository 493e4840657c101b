import Foundation

/// Base64 over a stream of chunks, for `application/grpc-web-text` bodies.
///
/// Chunk boundaries fall anywhere, so each side carries what does not fill a whole group: the decoder keeps up to
/// three characters, the encoder up to two bytes. The decoder also takes padded groups in the middle of a
/// stream, which senders that encode each message on its own produce.
enum Base64Stream {
    /// Incremental decoding; Foundation decodes each run of complete groups.
    struct Decoder {
        private var pending: [UInt8] = []

        /// Decodes `chunk`, keeping an incomplete trailing group for the next call.
        /// - Returns: the bytes decoded, or nil if the text is not base64.
        mutating func decode(_ chunk: some Collection<UInt8>) -> [UInt8]? {
            var input = pending
            input.reserveCapacity(pending.count + chunk.count)
            for byte in chunk where !Self.isWhitespace(byte) { input.append(byte) }
            let whole = input.count - input.count % 4
            pending = Array(input[whole...])
            var output: [UInt8] = []
            output.reserveCapacity(whole / 4 * 3)
            var start = 0
            // A padded group ends a run: decode run by run so padding may appear mid-stream.
            while start < whole {
                var end = start
                while end < whole {
                    end += 4
                    if input[end - 1] == UInt8(ascii: "=") { break }
                }
                guard let data = Data(base64Encoded: Data(input[start..<end])) else { return nil }
                output.append(contentsOf: data)
                start = end
            }
            return output
        }

        /// Whether the stream ended on a group boundary.
        var isComplete: Bool { pending.isEmpty }

        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
        }
    }

    /// Incremental encoding: emits whole groups and carries up to two bytes until ``finish()``.
    struct Encoder {
        private var carry: [UInt8] = []

        /// Encodes what fills whole groups of `bytes` (with the carried bytes before them).
        mutating func encode(_ bytes: some Collection<UInt8>) -> [UInt8] {
            var input = carry
            input.append(contentsOf: bytes)
            let whole = input.count - input.count % 3
            carry = Array(input[whole...])
            guard whole > 0 else { return [] }
            return Array(Data(input[..<whole]).base64EncodedData())
        }

        /// Encodes the carried bytes, padded: the end of the body.
        mutating func finish() -> [UInt8] {
            defer { carry = [] }
            return carry.isEmpty ? [] : Array(Data(carry).base64EncodedData())
        }
    }
}

import NIOCore
import Testing

@testable import HearthWire

/// gzip and deflate through zlib: round trips, limits and bad input, without sockets.
@Suite("Message compression (zlib)")
struct ZlibTests {
    static let text = Array("the quick brown fox jumps over the lazy dog, again and again. ".utf8)

    @Test("a message survives a round trip", arguments: MessageEncoding.all, [0, 1, 100_000])
    func roundTrip(encoding: MessageEncoding, repeats: Int) throws {
        let message = Array(repeating: Self.text, count: repeats).flatMap { $0 }
        let packed = try Zlib.compress(message, encoding: encoding)
        if repeats > 1 { #expect(packed.count < message.count / 10) }
        let unpacked = try Zlib.decompress(ByteBuffer(bytes: packed), encoding: encoding, limit: 10 << 20)
        #expect(Array(unpacked.readableBytesView) == message)
    }

    @Test("gzip and deflate are the formats gRPC means: gzip's magic, zlib's header")
    func formats() throws {
        let gzip = try Zlib.compress(Self.text, encoding: .gzip)
        #expect(gzip.prefix(2) == [0x1F, 0x8B])
        let deflate = try Zlib.compress(Self.text, encoding: .deflate)
        #expect(deflate[0] & 0x0F == 8 && (UInt16(deflate[0]) << 8 | UInt16(deflate[1])) % 31 == 0)
    }

    @Test("a decompression bomb stops at the limit", arguments: MessageEncoding.all)
    func bomb(encoding: MessageEncoding) throws {
        // 64 MiB of zeros packs into about 64 KiB.
        let packed = try Zlib.compress([UInt8](repeating: 0, count: 64 << 20), encoding: encoding)
        #expect(packed.count < 100_000)
        #expect(throws: Zlib.Failure.tooLarge(limit: 4 << 20)) {
            _ = try Zlib.decompress(ByteBuffer(bytes: packed), encoding: encoding, limit: 4 << 20)
        }
    }

    @Test("a message exactly at the limit passes; one byte over does not")
    func exactLimit() throws {
        let message = [UInt8](repeating: 7, count: 1000)
        let packed = ByteBuffer(bytes: try Zlib.compress(message, encoding: .gzip))
        #expect(try Zlib.decompress(packed, encoding: .gzip, limit: 1000).readableBytes == 1000)
        #expect(throws: Zlib.Failure.tooLarge(limit: 999)) { _ = try Zlib.decompress(packed, encoding: .gzip, limit: 999) }
    }

    @Test("truncated, trailing, corrupt and mismatched data is refused", arguments: MessageEncoding.all)
    func badInput(encoding: MessageEncoding) throws {
        let packed = try Zlib.compress(Self.text, encoding: encoding)
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("truncated", Array(packed.dropLast(3))),
            ("trailing bytes", packed + [1, 2, 3]),
            ("garbage", Array(repeating: 0xFF, count: 40)),
        ]
        for (name, bytes) in cases {
            do {
                _ = try Zlib.decompress(ByteBuffer(bytes: bytes), encoding: encoding, limit: 1 << 20)
                Issue.record("\(name) decompressed")
            } catch {
                guard case .corrupt = error else {
                    Issue.record("\(name): \(error)")
                    continue
                }
            }
        }
        let other: MessageEncoding = encoding == .gzip ? .deflate : .gzip
        #expect(throws: Zlib.Failure.self) { _ = try Zlib.decompress(ByteBuffer(bytes: packed), encoding: other, limit: 1 << 20) }
    }

    @Test("header names: known encodings parse, identity and unknown ones do not; accept lists keep known names")
    func names() {
        #expect(MessageEncoding(name: "GZIP") == .gzip)
        #expect(MessageEncoding(name: "deflate") == .deflate)
        #expect(MessageEncoding(name: "identity") == nil)
        #expect(MessageEncoding(name: "br") == nil)
        #expect(MessageEncoding.parseAcceptHeader("identity, deflate ,gzip,snappy") == [.deflate, .gzip])
        #expect(MessageEncoding.parseAcceptHeader("\tGZip\t,,DEFLATE, gzip") == [.gzip, .deflate])
        #expect(MessageEncoding.parseAcceptHeader("") == [])
        #expect(MessageEncoding.parseAcceptHeader("gzi,gzipp,g zip,deflate1,,") == [])
        #expect(MessageEncoding.parseAcceptHeader("gzip") == [.gzip])
        #expect(MessageEncoding.acceptHeader(MessageEncoding.all) == "identity,gzip,deflate")
    }
}

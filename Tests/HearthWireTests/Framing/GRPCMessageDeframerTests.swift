import NIOCore
import Testing

@testable import HearthWire

@Suite("Message framing")
struct GRPCMessageDeframerTests {
    private func framed(_ payloads: [[UInt8]]) -> [UInt8] {
        var buffer = ByteBuffer()
        for payload in payloads { GRPCMessageFramer.append(payload, to: &buffer) }
        return Array(buffer.readableBytesView)
    }

    private func feed(_ deframer: inout GRPCMessageDeframer, _ bytes: [UInt8]) throws -> [[UInt8]] {
        bytes.withUnsafeBytes { deframer.append($0) }
        var out: [[UInt8]] = []
        while let message = try deframer.next() { out.append(Array(message.readableBytesView)) }
        return out
    }

    /// The failure feeding `bytes` to a fresh deframer ends with, if any.
    private func failure(_ bytes: [UInt8], limit: Int) -> GRPCMessageDeframer.Failure? {
        var deframer = GRPCMessageDeframer(maxMessageSize: limit)
        do {
            _ = try feed(&deframer, bytes)
            return nil
        } catch let error as GRPCMessageDeframer.Failure {
            return error
        } catch {
            return nil
        }
    }

    @Test("contiguous and non-contiguous messages are framed to the same bytes: flag, big-endian length, body")
    func framingPaths() {
        for (count, compressed) in [(0, false), (1, true), (300, false), (70_000, true)] {
            let body = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            var contiguous = ByteBuffer(bytes: [0xAA])  // framing appends after what is there
            GRPCMessageFramer.append(body, compressed: compressed, to: &contiguous)
            var generic = ByteBuffer(bytes: [0xAA])
            GRPCMessageFramer.append((0..<count).lazy.map { UInt8(truncatingIfNeeded: $0 &* 7) }, compressed: compressed, to: &generic)
            let length = UInt32(count)
            let expected: [UInt8] =
                [0xAA, compressed ? 1 : 0, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + body
            #expect(Array(contiguous.readableBytesView) == expected)
            #expect(Array(generic.readableBytesView) == expected)
        }
    }

    @Test("a message split at every possible byte boundary comes out whole")
    func partialReads() throws {
        let bytes = framed([[1, 2, 3, 4, 5, 6, 7]])
        for cut in 1..<bytes.count {
            var deframer = GRPCMessageDeframer(maxMessageSize: 100)
            #expect(try feed(&deframer, Array(bytes[..<cut])) == [])
            #expect(deframer.hasPartialMessage)
            #expect(try feed(&deframer, Array(bytes[cut...])) == [[1, 2, 3, 4, 5, 6, 7]])
            #expect(!deframer.hasPartialMessage)
        }
    }

    @Test("large messages in 16 KB chunks, ending mid-chunk: each whole, its slice unchanged by what follows, the buffer sized once")
    func largeMessagesInChunks() throws {
        let payloads = (0..<5).map { n in (0..<(200_000 + n * 1_111)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }
        let bytes = framed(payloads)
        var deframer = GRPCMessageDeframer(maxMessageSize: 1 << 20)
        var slices: [ByteBuffer] = []
        var capacities: [Int] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + 16_384, bytes.count)
            bytes[offset..<end].withUnsafeBytes { deframer.append($0) }
            capacities.append(deframer.heldMemory)
            while let message = try deframer.next() { slices.append(message) }
            offset = end
        }
        #expect(slices.map { Array($0.readableBytesView) } == payloads, "kept slices still hold their own bytes")
        #expect(!deframer.hasPartialMessage)
        // Once a message's prefix is read, its buffer is sized for all of it: no doubling after that.
        let distinct = capacities.filter { $0 > 0 }.reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }
        #expect(distinct.count <= payloads.count * 2 + 1, "capacities seen: \(distinct)")
    }

    @Test("several messages in one frame, including empty ones")
    func severalPerFrame() throws {
        var deframer = GRPCMessageDeframer(maxMessageSize: 100)
        let messages: [[UInt8]] = [[], [9], [], [1, 2, 3]]
        #expect(try feed(&deframer, framed(messages)) == messages)
    }

    @Test("bytes fed one at a time")
    func byteByByte() throws {
        var deframer = GRPCMessageDeframer(maxMessageSize: 100)
        var got: [[UInt8]] = []
        for byte in framed([[1], [2, 2], []]) { got += try feed(&deframer, [byte]) }
        #expect(got == [[1], [2, 2], []])
    }

    @Test("an oversized length is refused from its prefix, before the body arrives")
    func oversize() throws {
        #expect(failure([0, 0, 0, 0, 11], limit: 10) == .messageTooLarge(length: 11, limit: 10))
        #expect(
            failure([0, 0xFF, 0xFF, 0xFF, 0xFF], limit: 4 << 20)
                == .messageTooLarge(length: Int(UInt32.max), limit: 4 << 20))
    }

    @Test("a message exactly at the limit is accepted")
    func atLimit() throws {
        var deframer = GRPCMessageDeframer(maxMessageSize: 3)
        #expect(try feed(&deframer, framed([[1, 2, 3]])) == [[1, 2, 3]])
    }

    @Test("the compressed flag without an encoding is refused")
    func compressedFlag() throws {
        #expect(failure([1, 0, 0, 0, 1, 42], limit: 10) == .compressedWithoutEncoding)
    }

    @Test("an unknown flag is refused")
    func invalidFlag() throws {
        #expect(failure([7, 0, 0, 0, 0], limit: 10) == .invalidFlag(7))
    }
}

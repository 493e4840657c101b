import CNghttp2
import NIOCore
import NIOEmbedded
import Testing

@testable import HearthWire

/// A unary call's start carries its request: the client's connection handler on an embedded channel, no socket.
@Suite("A call's one request leaves with its headers")
struct PreloadedCallTests {
    /// HTTP/2 frames as (type, flags, stream id, payload length), read from raw connection bytes.
    private static func frames(_ buffer: ByteBuffer) -> [(type: UInt8, flags: UInt8, stream: UInt32, length: Int)] {
        var bytes = buffer
        var out: [(UInt8, UInt8, UInt32, Int)] = []
        while bytes.readableBytes >= 9, let header = bytes.readBytes(length: 9) {
            let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
            let stream = (UInt32(header[5]) << 24 | UInt32(header[6]) << 16 | UInt32(header[7]) << 8 | UInt32(header[8])) & 0x7fff_ffff
            out.append((header[3], header[4], stream, length))
            bytes.moveReaderIndex(forwardBy: min(length, bytes.readableBytes))
        }
        return out
    }

    private static let codec = MessageCodec<[UInt8]>(serialize: { $0 }, deserialize: { Array($0.readableBytesView) })

    @Test("HEADERS, DATA with the framed message and END_STREAM go out in one write, after the preface")
    func oneWrite() throws {
        let handler = ClientConnectionHandler(configuration: ConnectionConfiguration(), authority: "localhost", onUnusable: {})
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.embeddedEventLoop.run()
        while try channel.readOutbound(as: ByteBuffer.self) != nil {}  // the preface and SETTINGS

        let message: [UInt8] = Array("toggle lamp".utf8)
        let request = try PreloadedRequest(message, codec: Self.codec, encoding: nil)
        let (_, _, id) = try handler.startCall(path: "/hearth.v1.Home/SendCommand", metadata: Metadata(), timeout: nil, request: request)
        channel.embeddedEventLoop.run()

        var writes: [ByteBuffer] = []
        while let write = try channel.readOutbound(as: ByteBuffer.self) { writes.append(write) }
        #expect(writes.count == 1)
        let frames = writes.flatMap(Self.frames).filter { $0.stream == UInt32(id) }
        #expect(frames.map(\.type) == [0x1, 0x0], "HEADERS then DATA")
        #expect(frames.last.map { $0.flags & 0x1 != 0 } == true, "END_STREAM on the DATA frame")
        #expect(frames.last?.length == 5 + message.count, "the gRPC prefix and the message")
        _ = try? channel.finish()
    }

    @Test("a request that cannot be encoded is refused with INTERNAL when it is prepared, before the call starts")
    func encodingFails() throws {
        struct Refused: Error {}
        let codec = MessageCodec<[UInt8]>(serialize: { _ in throw Refused() }, deserialize: { Array($0.readableBytesView) })
        #expect {
            _ = try PreloadedRequest([1], codec: codec, encoding: nil)
        } throws: { error in
            (error as? RPCError)?.code == .internal
        }
    }

    @Test("with an encoding the message is compressed, flagged and framed with its compressed length")
    func compressed() throws {
        let message = [UInt8](repeating: 7, count: 4096)
        let request = try PreloadedRequest(message, codec: Self.codec, encoding: .gzip)
        #expect(request.compressed)
        #expect(request.bytes.count < message.count)
        var framed = ByteBuffer()
        request.append(to: &framed)
        #expect(framed.readInteger(as: UInt8.self) == 1, "the compressed flag")
        #expect(framed.readInteger(as: UInt32.self) == UInt32(request.bytes.count))
    }
}

import Foundation
import NIOCore
import Testing

@testable import HearthWire

/// The pure parts of gRPC-Web: content types, trailer frames, base64 across chunks, the response body, the
/// HTTP version sniffer and the CORS rules.
@Suite("gRPC-Web coding")
struct GRPCWebCodingTests {
    @Test(
        "content types name the format",
        arguments: [
            ("application/grpc-web", GRPCWebFormat.binary), ("application/grpc-web+proto", .binary),
            ("Application/GRPC-Web+Proto", .binary), ("application/grpc-web-text", .text),
            ("application/grpc-web-text+proto", .text), ("application/grpc-web;charset=x", .binary),
        ])
    func formats(contentType: String, format: GRPCWebFormat) {
        #expect(GRPCWebFormat(contentType: contentType) == format)
    }

    @Test("other content types are not gRPC-Web", arguments: ["application/grpc", "application/grpc-webx", "text/html", "application/grpc-web+json"])
    func notWeb(contentType: String) {
        #expect(GRPCWebFormat(contentType: contentType) == nil)
    }

    @Test("the trailer frame carries status, message and trailers as header lines")
    func trailerFrame() {
        var trailers = Metadata()
        trailers.append((key: "x-k", value: .string("v")))
        let frame = GRPCWebFormat.trailerFrame(Status(code: .notFound, message: "no such device"), trailers: trailers)
        let block = "grpc-status:5\r\ngrpc-message:no such device\r\nx-k:v\r\n"
        #expect(frame == [0x80, 0, 0, 0, UInt8(block.utf8.count)] + Array(block.utf8))
    }

    @Test("base64 decodes across any chunk boundary, with padding in the middle of the stream")
    func base64Chunks() throws {
        let first = Array("ab".utf8)
        let second = Array("cdefg".utf8)
        // Each part encoded on its own: padding appears mid-stream.
        let text = Array((Data(first).base64EncodedString() + Data(second).base64EncodedString()).utf8)
        for split in 0...text.count {
            var decoder = Base64Stream.Decoder()
            let head = decoder.decode(text[..<split])
            let tail = decoder.decode(text[split...])
            let out = try #require(head) + #require(tail)
            #expect(out == first + second, "split at \(split)")
            #expect(decoder.isComplete)
        }
        var bad = Base64Stream.Decoder()
        #expect(bad.decode(Array("AA!A".utf8)) == nil)
        var partial = Base64Stream.Decoder()
        _ = partial.decode(Array("QUJD".utf8) + Array("QQ".utf8))
        #expect(!partial.isComplete)
    }

    @Test("the encoder emits whole groups and pads only at the end")
    func base64Encoder() {
        var encoder = Base64Stream.Encoder()
        let bytes = Array(0..<UInt8(100))
        var out: [UInt8] = []
        for chunk in stride(from: 0, to: bytes.count, by: 7) {
            let piece = encoder.encode(bytes[chunk..<min(chunk + 7, bytes.count)])
            #expect(!piece.contains(UInt8(ascii: "=")))
            out += piece
        }
        out += encoder.finish()
        #expect(String(decoding: out, as: UTF8.self) == Data(bytes).base64EncodedString())
    }

    @Test("a text response body is one base64 stream of the messages and the trailer frame")
    func textBody() {
        var body = GRPCWebResponseBody(format: .text)
        body.append([0, 0, 0, 0, 1, 42])
        body.append([0, 0, 0, 0, 0])
        body.end(.ok)
        #expect(body.isFinished == false)
        let text = body.readAll()
        #expect(body.isFinished)
        let decoded = [UInt8](Data(base64Encoded: Data(text))!)
        #expect(decoded == [0, 0, 0, 0, 1, 42, 0, 0, 0, 0, 0] + GRPCWebFormat.trailerFrame(.ok))
    }

    @Test("a binary body is read out in pieces no larger than asked")
    func binaryBodyPieces() {
        var body = GRPCWebResponseBody(format: .binary)
        body.append(Array(repeating: 7, count: 10))
        body.end(.ok)
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4)
        while !body.isFinished {
            let n = buffer.withUnsafeMutableBytes { body.read(into: $0) }
            #expect(n <= 4 && n > 0)
            collected += buffer[..<n]
        }
        #expect(collected == Array(repeating: 7, count: 10) + GRPCWebFormat.trailerFrame(.ok))
    }

    @Test("the sniffer tells HTTP/2's preface from HTTP/1.1 request lines")
    func sniffer() {
        let preface = ByteBuffer(bytes: HTTPVersionSniffer.preface)
        #expect(HTTPVersionSniffer.version(of: preface.readableBytesView) == .http2)
        #expect(HTTPVersionSniffer.version(of: ByteBuffer(string: "PRI * HTTP/2").readableBytesView) == nil)
        #expect(HTTPVersionSniffer.version(of: ByteBuffer(string: "GET / HTTP/1.1\r\n").readableBytesView) == .http1)
        #expect(HTTPVersionSniffer.version(of: ByteBuffer(string: "PRI * HTTP/1.1").readableBytesView) == .http1)
        #expect(HTTPVersionSniffer.version(of: ByteBuffer().readableBytesView) == nil)
    }

    @Test("CORS: own origin and listed origins pass, others are refused; preflights say so")
    func cors() {
        let policy = CORSPolicy(allowedOrigins: ["https://app.example"])
        #expect(policy.allows(origin: nil, host: "hub:7070"))
        #expect(policy.allows(origin: "http://hub:7070", host: "hub:7070"))
        #expect(policy.allows(origin: "https://app.example", host: "hub:7070"))
        #expect(!policy.allows(origin: "https://evil.example", host: "hub:7070"))
        #expect(!policy.allows(origin: "null", host: "hub:7070"))
        #expect(policy.preflight(origin: "https://evil.example", host: "hub:7070", requestedHeaders: nil).status == 403)
        let ok = policy.preflight(origin: "https://app.example", host: "hub:7070", requestedHeaders: "authorization")
        #expect(ok.status == 204)
        #expect(ok.headers.contains { $0 == ("access-control-allow-origin", "https://app.example") })
        #expect(CORSPolicy(allowedOrigins: ["*"]).allows(origin: "https://any.example", host: nil))
    }

    @Test("the request state machine takes gRPC-Web heads without te and decodes text bodies")
    func stateMachine() throws {
        var machine = ServerStreamStateMachine(limits: .init(maxHeaderListSize: 8192, maxReceiveMessageSize: 1024))
        for (name, value) in [(":method", "POST"), (":path", "/a.B/C"), ("content-type", "application/grpc-web-text")] {
            machine.receiveHeader(name: name, value: value)
        }
        guard case .dispatch(let head) = machine.receiveHeadersComplete(endStream: false) else {
            Issue.record("a gRPC-Web head was refused")
            return
        }
        #expect(head.web == .text)
        let text = Array(Data([0, 0, 0, 0, 2, 8, 1]).base64EncodedString().utf8)
        let first = text[..<3].withUnsafeBytes { machine.receiveData($0) }
        #expect(first == .deliver([]))
        guard case .deliver(let messages) = text[3...].withUnsafeBytes({ machine.receiveData($0) }) else {
            Issue.record("the text body was refused")
            return
        }
        #expect(messages.map { Array($0.bytes.readableBytesView) } == [[8, 1]])
        #expect(machine.receiveEndStream() == .finishInbound)

        var truncated = ServerStreamStateMachine(limits: .init(maxHeaderListSize: 8192, maxReceiveMessageSize: 1024))
        for (name, value) in [(":method", "POST"), (":path", "/a.B/C"), ("content-type", "application/grpc-web-text")] {
            truncated.receiveHeader(name: name, value: value)
        }
        _ = truncated.receiveHeadersComplete(endStream: false)
        _ = Array("AAAAAA".utf8).withUnsafeBytes { truncated.receiveData($0) }
        #expect(truncated.receiveEndStream() != .finishInbound)
    }
}

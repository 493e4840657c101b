import CNghttp2
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import HearthWire

/// What the server answers to requests our own client would never send,
/// with client and server nghttp2 sessions trading bytes in memory.
@Suite("Server answers to malformed and hostile requests")
struct ServerProtocolTests {
    @Test("a content-type other than application/grpc gets HTTP 415")
    func contentType() throws {
        let pair = try InMemoryServer()
        var headers = RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get")
        headers[4] = ("content-type", "application/json")
        let id = try pair.client.request(headers, body: [0, 0, 0, 0, 0])
        try pair.pump()
        #expect(pair.client.lastBlock(id)[":status"] == "415")
    }

    @Test(
        "request heads that break gRPC's rules are refused with the right answer",
        arguments: [
            ("method", [(":method", "PUT")], "405", nil as String?),
            ("no te", [("te", "<remove>")], "400", nil),
            ("timeout", [("grpc-timeout", "soon")], "400", nil),
            ("encoding", [("grpc-encoding", "br")], "200", "12"),
            ("path", [(":path", "/no-method")], "200", "12"),
            ("unknown method", [(":path", "/hearth.echo.v1.Echo/Nope")], "200", "12"),
        ])
    func badHeads(name: String, change: [(String, String)], httpStatus: String, grpcStatus: String?) throws {
        let pair = try InMemoryServer()
        var headers = RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get")
        for (key, value) in change {
            if value == "<remove>" {
                headers.removeAll { $0.0 == key }
            } else if let i = headers.firstIndex(where: { $0.0 == key }) {
                headers[i].1 = value
            } else {
                headers.append((key, value))
            }
        }
        let id = try pair.client.request(headers, body: [0, 0, 0, 0, 0])
        try pair.pump()
        let block = pair.client.lastBlock(id)
        #expect(block[":status"] == httpStatus, "\(name)")
        if let grpcStatus { #expect(block["grpc-status"] == grpcStatus, "\(name)") }
        // The answer ends the stream and the connection stays up.
        #expect(pair.client.closed[id] != nil)
        #expect(pair.channel.isActive)
    }

    @Test("an oversized message is refused from its length prefix with RESOURCE_EXHAUSTED")
    func oversizedPrefix() throws {
        var configuration = WireServer.Configuration()
        configuration.connection.limits.maxReceiveMessageSize = 1024
        let pair = try InMemoryServer(configuration: configuration)
        // Only the prefix announcing 1 GiB is sent: no body is needed for the refusal.
        let id = try pair.client.request(RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get"), body: [0, 0x40, 0, 0, 0])
        try pair.pump()
        #expect(pair.client.lastBlock(id)["grpc-status"] == "8")
    }

    @Test("a message cut off by END_STREAM ends the call with INTERNAL")
    func truncatedMessage() async throws {
        let pair = try InMemoryServer()
        let id = try pair.client.request(RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get"), body: [0, 0, 0, 0, 9, 1, 2])
        try pair.pump()
        // The call was dispatched; run it so it can answer.
        var calls = pair.calls.makeAsyncIterator()
        let call = await calls.next()
        try #require(call != nil)
        await call!.run()
        try pair.pump()
        #expect(pair.client.lastBlock(id)["grpc-status"] == "13")
    }

    @Test("bytes that are not HTTP/2 close the connection")
    func garbage() throws {
        let pair = try InMemoryServer()
        try pair.pump(raw: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(!pair.channel.isActive)
    }

    @Test("a rapid-reset flood ends the connection with GOAWAY")
    func rapidReset() throws {
        let pair = try InMemoryServer()
        var ended = false
        // Open streams whose calls stay pending, then reset them: each reset
        // closes a live stream, which is what nghttp2's limit counts.
        for _ in 0..<40 where !ended {
            var ids: [Int32] = []
            for _ in 0..<50 {
                ids.append(try pair.client.request(RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get"), body: [0, 0, 0, 0, 0]))
            }
            try pair.pump()
            for id in ids { pair.client.session.resetStream(streamID: id, errorCode: NGHTTP2_CANCEL.rawValue) }
            try pair.pump()
            ended = pair.client.goAway != nil || !pair.channel.isActive
        }
        #expect(ended)
        if let goAway = pair.client.goAway { #expect(goAway.errorCode != 0) }
    }

    @Test("a header block split across too many CONTINUATION frames ends the connection")
    func continuationFlood() throws {
        let pair = try InMemoryServer()
        // ~200 KiB of headers needs about 13 frames of 16 KiB: over the limit of 8 CONTINUATIONs.
        var headers = RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get")
        for i in 0..<50 { headers.append(("x-h\(i)", String(repeating: "v", count: 4000))) }
        _ = try pair.client.request(headers, body: [0, 0, 0, 0, 0])
        try pair.pump()
        #expect(pair.client.goAway != nil || !pair.channel.isActive)
    }
}

import Foundation
import HearthTesting
import NIOCore
import SwiftProtobuf
import WireHarness

@testable import HearthWire

/// Seeds of `FuzzWireFraming`: real gRPC conversations, each recorded as the bytes an nghttp2 client sent
/// to the server connection the fuzz target feeds (``EmbeddedConnection``) while they talked: preface,
/// SETTINGS, HEADERS (HPACK), DATA, SETTINGS and PING acks, WINDOW_UPDATE, RST_STREAM, GOAWAY. Each starts
/// with the target's selector and time byte. Then seeds of the state-machine and deframer modes.
enum WireSeeds {
    static func write(_ corpus: inout Corpus) throws {
        let get = [message(.with { $0.text = "hello"; $0.payload = Data([1, 2, 3]) })]

        try corpus.add("unary-get", head() + record([{ _ = try $0.request(path: Echo.get.path, get) }]))
        try corpus.add("unary-get-byte-reads", head(reads: 1) + record([{ _ = try $0.request(path: Echo.get.path, get) }]))
        try corpus.add(
            "unary-get-no-preface",
            head(prependPreface: true) + record([{ _ = try $0.request(path: Echo.get.path, get) }]).dropFirst(24))
        try corpus.add(
            "unary-get-oversized-small-limits",
            head(small: true)
                + record([{ _ = try $0.request(path: Echo.get.path, [message(.with { $0.payload = Data(count: 100) })]) }]))
        try corpus.add(
            "unary-get-three-streams",
            head(reads: 64)
                + record([{ client in for _ in 0..<3 { _ = try client.request(path: Echo.get.path, get) } }]))
        try corpus.add(
            "server-streaming-expand-metadata-timeout",
            head(advance: 1)
                + record([{
                    _ = try $0.request(
                        path: Echo.expand.path,
                        [message(Hearth_Echo_V1_ExpandRequest.with { $0.text = "x"; $0.count = 3; $0.payloadSize = 8 })],
                        extra: [("x-echo-a", "1"), ("grpc-timeout", "1S"), ("x-data-bin", "AAEC")])
                }]))
        try corpus.add(
            "client-streaming-collect",
            head()
                + record([{
                    _ = try $0.request(path: Echo.collect.path, ["a", "b", "c"].map { text in message(.with { $0.text = text }) })
                }]))
        var stream: Int32 = 0
        try corpus.add(
            "bidi-update-in-steps",
            head(reads: 9)
                + record([
                    { stream = try $0.request(path: Echo.update.path, [message(.with { $0.text = "one" })], end: false) },
                    { try $0.send(stream, [message(.with { $0.text = "two" }), message(.with { $0.text = "three" })], end: false) },
                    { try $0.send(stream, [], end: true) },
                ]))
        try corpus.add(
            "bidi-update-fails",
            head()
                + record([{
                    _ = try $0.request(path: Echo.update.path, [message(.with { $0.text = "a" }), message(.with { $0.failWithCode = 5 })])
                }]))
        try corpus.add(
            "bidi-update-reset-by-client",
            head()
                + record([
                    { stream = try $0.request(path: Echo.update.path, [message(.with { $0.text = "a" })], end: false) },
                    { $0.session.resetStream(streamID: stream, errorCode: 8) },
                ]))
        try corpus.add(
            "bidi-update-deadline",
            head(advance: 1)
                + record([{
                    _ = try $0.request(path: Echo.update.path, [message(.with { $0.text = "a" })], extra: [("grpc-timeout", "100m")], end: false)
                }]))
        try corpus.add(
            "bidi-update-no-first-message",
            head(advance: 2) + record([{ _ = try $0.request(path: Echo.update.path, [], end: false) }]))
        try corpus.add(
            "ping-then-get",
            head() + record([{ $0.session.ping() }, { _ = try $0.request(path: Echo.get.path, get) }]))
        try corpus.add(
            "unknown-method", head() + record([{ _ = try $0.request(path: "/hearth.echo.v1.Echo/Nope", get) }]))
        try corpus.add(
            "wrong-content-type",
            head() + record([{ _ = try $0.request(path: Echo.get.path, get, contentType: "application/json") }]))
        try corpus.add(
            "get-then-goaway",
            head() + record([{ _ = try $0.request(path: Echo.get.path, get) }, { $0.session.submitGoAway(errorCode: 0) }]))
        try corpus.add(
            "get-then-graceful-shutdown",
            head(advance: 0x04) + record([{ _ = try $0.request(path: Echo.get.path, get, end: false) }]))

        try writeStateMachineSeeds(&corpus)
        try writeDeframerSeeds(&corpus)
    }

    /// The selector and time bytes of a connection input (``ConnectionInput``).
    static func head(reads: Int = .max, small: Bool = false, prependPreface: Bool = false, advance: UInt8 = 0) -> [UInt8] {
        ConnectionInput.head(readSize: reads, smallLimits: small, prependPreface: prependPreface, advance: advance)
    }

    static func message(_ request: Hearth_Echo_V1_EchoRequest) -> [UInt8] { message(request as any SwiftProtobuf.Message) }

    /// A gRPC message: flag, big-endian length, the protobuf bytes.
    static func message(_ request: any SwiftProtobuf.Message) -> [UInt8] {
        let body: [UInt8] = try! request.serializedBytes()
        let length = UInt32(body.count)
        return [0, UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)] + body
    }

    /// Runs the steps against a fresh server connection, letting bytes flow both ways after each, and
    /// returns every byte the client sent.
    static func record(_ steps: [(CaptureClient) throws -> Void]) throws -> [UInt8] {
        let server = EmbeddedConnection(configuration: .defaults)
        server.keepsOutbound = true
        let client = try CaptureClient()
        var sent: [UInt8] = []
        for step in steps {
            try step(client)
            for _ in 0..<100 {
                var out = ByteBuffer()
                try client.session.drainOutbound(into: &out)
                var moved = false
                if out.readableBytes > 0, server.isActive {
                    sent += out.readableBytesView
                    server.receive(out.readableBytesView)
                    moved = true
                }
                for reply in server.takeOutbound() {
                    try? client.session.receive(reply)
                    moved = true
                }
                if !moved { break }
            }
        }
        server.closeAndCheck()
        return sent
    }

    // MARK: State machine and deframer

    static func name(_ name: String) -> UInt8 { UInt8(WireVocabulary.names.firstIndex(of: name)!) }
    static func value(_ value: String) -> UInt8 { UInt8(WireVocabulary.values.firstIndex(of: value)!) }

    /// Events of `StreamMachineFuzz`: [6][header limit][message limit] then events.
    static func writeStateMachineSeeds(_ corpus: inout Corpus) throws {
        func limits(_ headers: UInt16, _ message: UInt16) -> [UInt8] {
            [6, UInt8(headers & 0xFF), UInt8(headers >> 8), UInt8(message & 0xFF), UInt8(message >> 8)]
        }
        func header(_ n: String, _ v: String) -> [UInt8] { [0x00, name(n), value(v)] }
        var head: [UInt8] = []
        for (n, v) in [
            (":method", "POST"), (":scheme", "http"), (":path", "/hearth.echo.v1.Echo/Get"), (":authority", "localhost"),
            ("content-type", "application/grpc"), ("te", "trailers"),
        ] {
            head += header(n, v)
        }
        let body = message(Hearth_Echo_V1_EchoRequest.with { $0.text = "hi" })
        func data(_ bytes: some Collection<UInt8>) -> [UInt8] { [0x02, UInt8(bytes.count)] + Array(bytes) }
        let open: [UInt8] = limits(8192, 4096) + head
        try corpus.add("machine-request", open + [0x01] + data(body) + [0x03])
        let split: [UInt8] = data(body.prefix(3)) + data(body.dropFirst(3))
        try corpus.add("machine-request-split-data", open + header("grpc-timeout", "100m") + [0x01] + split + [0x03])
        try corpus.add("machine-request-trailers", open + [0x01] + data(body) + header("x-echo-a", "-") + [0x05])
        try corpus.add("machine-headers-only", open + [0x05])
        try corpus.add("machine-bad-te", limits(8192, 4096) + header(":method", "POST") + header("te", "gzip") + [0x01])
        try corpus.add("machine-small-limits", limits(64, 2) + head + [0x01] + data(body))
        // A free-text metadata field: event byte with bits 2 and 3 set, then the name and value runs.
        let freeText: [UInt8] = [0x0C, 5] + Array("x-bin".utf8) + [4] + Array("AAE=".utf8)
        try corpus.add("machine-free-text-metadata", open + freeText + [0x01] + data(body) + [0x03])
    }

    /// Chunks of `DeframerFuzz`: [7][limit] then length-prefixed chunks.
    static func writeDeframerSeeds(_ corpus: inout Corpus) throws {
        let one = message(Hearth_Echo_V1_EchoRequest.with { $0.text = "one" })
        let two = message(Hearth_Echo_V1_EchoRequest.with { $0.payload = Data(repeating: 7, count: 40) })
        let limit: [UInt8] = [7, 0x00, 0x04]  // 1024
        func chunk(_ bytes: some Collection<UInt8>) -> [UInt8] { [UInt8(bytes.count)] + Array(bytes) }
        try corpus.add("deframe-two-messages", limit + chunk(one + two))
        try corpus.add("deframe-split", limit + chunk(one.prefix(2)) + chunk(one.dropFirst(2)))
        try corpus.add("deframe-empty-message", limit + chunk([0, 0, 0, 0, 0]))
        try corpus.add("deframe-compressed", limit + chunk([1, 0, 0, 0, 1, 0]))
        try corpus.add("deframe-too-large", [7, 16, 0] + chunk(two))
    }
}

/// A plain nghttp2 client that sends what it is told, consumes what it receives, and answers nothing.
final class CaptureClient: NGHTTP2SessionDelegate {
    var session: NGHTTP2Session!
    private var bodies: [Int32: (bytes: [UInt8], end: Bool)] = [:]

    init() throws {
        session = try NGHTTP2Session(role: .client, options: ConnectionConfiguration().sessionOptions, delegate: self)
    }

    /// Opens a gRPC stream with these messages; `end` half-closes after them.
    func request(
        path: String, _ messages: [[UInt8]], extra: [(String, String)] = [], contentType: String = "application/grpc",
        end: Bool = true
    ) throws -> Int32 {
        let headers = [
            (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
            ("content-type", contentType), ("te", "trailers"), ("user-agent", "hearth-fuzz-seeds"),
        ] + extra
        let id = try session.submitRequest(headers: headers)
        bodies[id] = (messages.flatMap { $0 }, end)
        return id
    }

    /// More messages on an open stream.
    func send(_ id: Int32, _ messages: [[UInt8]], end: Bool) throws {
        bodies[id, default: ([], false)].bytes += messages.flatMap { $0 }
        bodies[id, default: ([], false)].end = end
        session.resumeData(streamID: id)
    }

    func sessionBeginHeaders(streamID: Int32) {}
    func sessionHeader(streamID: Int32, name: String, value: String) -> Bool { true }
    func sessionHeadersComplete(streamID: Int32, endStream: Bool) {}
    func sessionData(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        session.consume(streamID: streamID, bytes: bytes.count)
    }
    func sessionDataFrameComplete(streamID: Int32, endStream: Bool, padding: Int) {}
    func sessionStreamClosed(streamID: Int32, errorCode: UInt32) { bodies[streamID] = nil }
    func sessionReadData(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer) -> NGHTTP2Session.ReadResult {
        guard var body = bodies[streamID] else { return .failure }
        let count = min(body.bytes.count, buffer.count)
        buffer.copyBytes(from: body.bytes.prefix(count))
        body.bytes.removeFirst(count)
        bodies[streamID] = body
        if body.bytes.isEmpty, body.end { return .bytes(count, end: .endStream) }
        return count == 0 ? .deferred : .bytes(count, end: nil)
    }
    func sessionPing(ack: Bool) {}
    func sessionGoAway(lastStreamID: Int32, errorCode: UInt32) {}
}

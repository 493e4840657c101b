import CNghttp2
import HearthTesting
import NIOCore
import NIOEmbedded

@testable import HearthWire

/// A raw nghttp2 client that records what it receives, for tests that send
/// what our own client never would.
final class RawH2Client: NGHTTP2SessionDelegate {
    var session: NGHTTP2Session!
    var headerBlocks: [Int32: [[(String, String)]]] = [:]
    var current: [Int32: [(String, String)]] = [:]
    var closed: [Int32: UInt32] = [:]
    var goAway: (lastStreamID: Int32, errorCode: UInt32)?
    var bodies: [Int32: [UInt8]] = [:]
    /// Streams whose body stays open after what `bodies` holds is sent (no END_STREAM).
    var heldOpen: Set<Int32> = []

    init() throws {
        var options = ConnectionConfiguration().sessionOptions
        options.maxHeaderListSize = 1 << 20
        options.maxSendHeaderBlockLength = 1 << 20
        session = try NGHTTP2Session(role: .client, options: options, delegate: self)
    }

    /// Opens a stream with exactly these headers and body (then END_STREAM).
    func request(_ headers: [(String, String)], body: [UInt8] = [], holdOpen: Bool = false) throws -> Int32 {
        let id = try session.submitRequest(headers: headers)
        bodies[id] = body
        if holdOpen { heldOpen.insert(id) }
        return id
    }

    static func grpcHeaders(path: String, extra: [(String, String)] = []) -> [(String, String)] {
        [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
         ("content-type", "application/grpc"), ("te", "trailers")] + extra
    }

    /// The status headers of the stream's last header block.
    func lastBlock(_ id: Int32) -> [String: String] {
        Dictionary((headerBlocks[id]?.last ?? []).map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
    }

    func sessionBeginHeaders(streamID: Int32) { current[streamID] = [] }
    func sessionHeader(streamID: Int32, name: String, value: String) -> Bool {
        current[streamID, default: []].append((name, value))
        return true
    }
    func sessionHeadersComplete(streamID: Int32, endStream: Bool) {
        headerBlocks[streamID, default: []].append(current[streamID] ?? [])
    }
    func sessionData(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        session.consume(streamID: streamID, bytes: bytes.count)
    }
    func sessionDataFrameComplete(streamID: Int32, endStream: Bool, padding: Int) {}
    func sessionStreamClosed(streamID: Int32, errorCode: UInt32) { closed[streamID] = errorCode }
    func sessionReadData(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer) -> NGHTTP2Session.ReadResult {
        var body = bodies[streamID] ?? []
        let n = min(body.count, buffer.count)
        buffer.copyBytes(from: body.prefix(n))
        body.removeFirst(n)
        bodies[streamID] = body
        if heldOpen.contains(streamID) { return n == 0 ? .deferred : .bytes(n, end: nil) }
        return .bytes(n, end: body.isEmpty ? .endStream : nil)
    }
    func sessionPing(ack: Bool) {}
    func sessionGoAway(lastStreamID: Int32, errorCode: UInt32) { goAway = (lastStreamID, errorCode) }
}

/// Our server connection handler on an `EmbeddedChannel`, paired in memory
/// with a ``RawH2Client``: bytes move only when ``pump()`` is called.
final class InMemoryServer {
    let channel: EmbeddedChannel
    let client: RawH2Client
    let calls: AsyncStream<ServerCall>
    /// The server-wide budget the connection charges.
    let budget: WireBudget

    init(configuration: WireServer.Configuration = .defaults, services: [any WireService] = [EchoService()]) throws {
        let (calls, continuation) = AsyncStream<ServerCall>.makeStream()
        self.calls = calls
        budget = WireBudget(limits: configuration.connection.budgets)
        let handler = ServerConnectionHandler(
            starter: CallStart(
                configuration: configuration, router: ServiceRouter(services: services),
                admission: CallAdmission(limit: configuration.maxRunningHandlers),
                budget: ConnectionBudget(server: budget)),
            calls: continuation)
        channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        client = try RawH2Client()
    }

    /// Moves bytes both ways until neither side has anything to send.
    func pump(raw: [UInt8]? = nil) throws {
        if let raw { try channel.writeInbound(ByteBuffer(bytes: raw)) }
        for _ in 0..<100 {
            var moved = false
            var out = ByteBuffer()
            try client.session.drainOutbound(into: &out)
            if out.readableBytes > 0, channel.isActive {
                try channel.writeInbound(out)
                moved = true
            }
            channel.embeddedEventLoop.run()
            while let reply = try channel.readOutbound(as: ByteBuffer.self) {
                try? client.session.receive(reply)
                moved = true
            }
            if !moved { return }
        }
    }
}

import CNghttp2
import Foundation
import HearthTesting
import NIOCore
import NIOEmbedded
import NIOPosix
import SwiftProtobuf
import Testing

@testable import HearthWire

/// The server's budgets: incomplete messages, credentials at HEADERS, the first message's deadline,
/// bytes queued for a reader that stopped reading, and sessions freed however connections end.
@Suite("Budgets")
struct BudgetTests {
    static let collect = "/hearth.echo.v1.Echo/Collect"

    /// A gRPC prefix announcing `length` bytes, followed by `sent` of them.
    static func partialMessage(length: Int, sent: Int) -> [UInt8] {
        [0] + withUnsafeBytes(of: UInt32(length).bigEndian, Array.init) + [UInt8](repeating: 7, count: sent)
    }

    @Test("incomplete messages past the connection's budget end that call with RESOURCE_EXHAUSTED, not others")
    func partialBudget() throws {
        var configuration = WireServer.Configuration()
        configuration.connection.budgets.partialMessageBytesPerConnection = 100 * 1024
        let pair = try InMemoryServer(configuration: configuration)
        let headers = RawH2Client.grpcHeaders(path: Self.collect)
        let first = try pair.client.request(headers, body: Self.partialMessage(length: 60_000, sent: 40_000), holdOpen: true)
        try pair.pump()
        // The budget counts the memory holding the bytes: the buffer's allocation.
        let held = pair.budget.statistics.partialMessageBytes
        #expect(held >= 40_000 && held <= 64 * 1024)
        let second = try pair.client.request(headers, body: Self.partialMessage(length: 60_000, sent: 40_000), holdOpen: true)
        try pair.pump()

        #expect(pair.client.lastBlock(second)["grpc-status"] == "8")
        #expect(pair.client.lastBlock(second)["grpc-message"]?.contains("budget") == true)
        #expect(pair.client.lastBlock(first)["grpc-status"] == nil)
        #expect(pair.budget.statistics.partialMessageBytes == held)
        #expect(pair.budget.statistics.partialBudgetRefusals == 1)
        #expect(pair.channel.isActive)

        // The first call's bytes are given back when its stream goes.
        pair.client.session.resetStream(streamID: first, errorCode: NGHTTP2_CANCEL.rawValue)
        try pair.pump()
        #expect(pair.budget.statistics.partialMessageBytes == 0)
    }

    @Test("the server-wide budget holds across connections")
    func serverPartialBudget() throws {
        var configuration = WireServer.Configuration()
        configuration.connection.budgets.partialMessageBytesPerServer = 64 * 1024
        let budget = WireBudget(limits: configuration.connection.budgets)
        #expect(budget.reservePartial(40_000))
        #expect(!budget.reservePartial(40_000))
        #expect(budget.statistics.partialMessageBytes == 40_000)
        budget.releasePartial(40_000)
        #expect(budget.reservePartial(60_000))
    }

    @Test("a call refused by the gate is answered at HEADERS and never dispatched")
    func callGate() async throws {
        var configuration = WireServer.Configuration()
        configuration.callGate = { _, metadata in
            metadata.string(for: "authorization") == "Bearer good"
                ? nil : Status(code: .unauthenticated, message: "no token")
        }
        let pair = try InMemoryServer(configuration: configuration)
        let refused = try pair.client.request(RawH2Client.grpcHeaders(path: Self.collect), holdOpen: true)
        let admitted = try pair.client.request(
            RawH2Client.grpcHeaders(path: Self.collect, extra: [("authorization", "Bearer good")]), holdOpen: true)
        try pair.pump()
        #expect(pair.client.lastBlock(refused)["grpc-status"] == "16")
        #expect(pair.client.closed[refused] != nil)
        #expect(pair.client.lastBlock(admitted)["grpc-status"] == nil)
        #expect(pair.budget.statistics.unauthenticatedRefusals == 1)
        var iterator = pair.calls.makeAsyncIterator()
        let call = await iterator.next()
        #expect(call?.context.path == Self.collect)
        call?.admission.release()
    }

    @Test("a call whose first message does not come in time ends with RESOURCE_EXHAUSTED")
    func firstMessageTimeout() throws {
        var configuration = WireServer.Configuration()
        configuration.connection.budgets.firstMessageTimeout = .milliseconds(100)
        let pair = try InMemoryServer(configuration: configuration)
        let idle = try pair.client.request(RawH2Client.grpcHeaders(path: Self.collect), holdOpen: true)
        let talking = try pair.client.request(
            RawH2Client.grpcHeaders(path: Self.collect), body: Self.partialMessage(length: 1, sent: 1), holdOpen: true)
        try pair.pump()
        pair.channel.embeddedEventLoop.advanceTime(by: .milliseconds(150))
        try pair.pump()
        #expect(pair.client.lastBlock(idle)["grpc-status"] == "8")
        #expect(pair.client.lastBlock(talking)["grpc-status"] == nil)
        #expect(pair.budget.statistics.firstMessageTimeouts == 1)
    }

    @Test("thousands of connections, however they end, leave no session, connection or buffered byte behind")
    func churn() async throws {
        try await withWireServer(services: [EchoService()]) { server, _ in
            let port = try await server.listeningAddresses()[0].port!
            let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
            for round in 0..<40 {
                try await withThrowingDiscardingTaskGroup { group in
                    for i in 0..<50 {
                        group.addTask {
                            switch (round * 50 + i) % 4 {
                            case 0:
                                // A well-behaved client: a call, then close.
                                let client = WireClient(target: .tcp(host: "127.0.0.1", port: port))
                                _ = try await client.unary(Echo.get, request: .with { $0.text = "hi" })
                                client.close()
                            case 1: try await Self.rawConnection(port: port, send: [])
                            case 2: try await Self.rawConnection(port: port, send: preface)
                            default: try await Self.rawConnection(port: port, send: preface + [0, 0, 4, 0xff, 0xff])
                            }
                        }
                    }
                }
            }
            try await Self.eventually { server.openConnections == 0 && server.statistics.sessionsAlive == 0 }
            #expect(server.statistics.sessionsAlive == 0)
            #expect(server.statistics.partialMessageBytes == 0)
            #expect(server.statistics.queuedOutboundBytes == 0)
        }
    }

    @Test("a connection whose reader stops is closed with ENHANCE_YOUR_CALM once its queue passes the budget")
    func outboundConnectionBudget() async throws {
        var configuration = WireServer.Configuration()
        configuration.connection.budgets.queuedOutboundBytesPerConnection = 128 * 1024
        try await withWireServer(services: [EchoService()], configuration: configuration) { server, client in
            let channel = try await Self.stalledCall(port: server.listeningAddresses()[0].port!)
            try await Self.eventually { server.statistics.enhanceYourCalmClosures == 1 }
            try await Self.eventually { server.statistics.queuedOutboundBytes == 0 }
            try? await channel.close()
            // Other clients are served as before.
            let reply = try await client.unary(Echo.get, request: .with { $0.text = "still here" })
            #expect(reply.text == "still here")
        }
    }

    @Test("past the server's outbound budget a stalled reader's stream is reset; a reader keeping up is not")
    func outboundServerBudget() async throws {
        var configuration = WireServer.Configuration()
        configuration.connection.budgets.queuedOutboundBytesPerServer = 256 * 1024
        // Let a stream queue far past the budget, so that the server's budget, not the writer's watermark
        // or the connection's budget, is what stops it.
        configuration.connection.flowControl.outboundHighWatermark = 64 * 1024 * 1024
        configuration.connection.budgets.queuedOutboundBytesPerConnection = 64 * 1024 * 1024
        try await withWireServer(services: [EchoService(), Ticker()], configuration: configuration) { server, client in
            // A raw client asks for a slow stream (16 KiB every 20 ms, 8 s in all) and never reads it.
            let channel = try await Self.stalledCall(
                port: server.listeningAddresses()[0].port!, path: Ticker.tick.path,
                request: .with { $0.count = 400; $0.payloadSize = 16 * 1024 })
            // A healthy reader meanwhile takes a bursty 8 MiB stream whole, however much is queued.
            let received = try await client.serverStreaming(
                Echo.expand, request: .with { $0.count = 512; $0.payloadSize = 16 * 1024 }
            ) { responses in
                var count = 0
                for try await _ in responses { count += 1 }
                return count
            }
            #expect(received == 512)
            // The stalled stream, behind for over a second while the budget is spent, is reset alone.
            try await Self.eventually { server.statistics.outboundBudgetResets >= 1 }
            #expect(server.statistics.outboundBudgetResets == 1, "only the stalled stream is reset")
            try? await channel.close()
            try await Self.eventually { server.statistics.queuedOutboundBytes == 0 }
        }
    }

    /// A server stream that writes one response every 20 ms.
    struct Ticker: WireService {
        static let tick = MethodDescriptor<Hearth_Echo_V1_ExpandRequest, Hearth_Echo_V1_EchoResponse>(
            service: "hearth.test.Ticker", method: "Tick", kind: .serverStreaming)

        func register(into router: inout ServiceRouter) {
            router.registerServerStreaming(Self.tick) { request, writer, _ in
                for index in 0..<UInt64(request.count) {
                    try await writer.write(.with { $0.index = index; $0.payload = Data(count: Int(request.payloadSize)) })
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
        }
    }

    /// A raw client that makes one server-streaming call and never reads a byte of the answer.
    static func stalledCall(
        port: Int, path: String = "/hearth.echo.v1.Echo/Expand",
        request: Hearth_Echo_V1_ExpandRequest = .with { $0.count = 512; $0.payloadSize = 16 * 1024 }
    ) async throws -> any Channel {
        let raw = try RawH2Client()
        let body = try [UInt8](request.serializedBytes() as Data)
        _ = try raw.request(
            RawH2Client.grpcHeaders(path: path),
            body: [0] + withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + body)
        var bytes = ByteBuffer()
        try raw.session.drainOutbound(into: &bytes)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: false)
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(bytes)
        return channel
    }

    /// Connects, writes `send`, closes.
    static func rawConnection(port: Int, send: [UInt8]) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
        if !send.isEmpty { try await channel.writeAndFlush(ByteBuffer(bytes: send)) }
        try await channel.close()
    }

    /// Polls `condition` every 20 ms for at most 30 s (a bound against hangs, not a speed assertion).
    static func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<1500 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("condition not met within 30 s")
    }
}

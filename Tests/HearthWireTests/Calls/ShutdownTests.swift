import Foundation
import HearthTesting
import HearthWire
import NIOCore
import NIOPosix
import SwiftProtobuf
import Testing

@Suite("Graceful shutdown and keepalive")
struct ShutdownTests {
    @Test("graceful shutdown lets calls in flight finish, refuses new ones, and ends run()")
    func gracefulShutdown() async throws {
        let probe = ProbeService()
        let server = WireServer(listeningOn: [.tcp(host: "127.0.0.1", port: 0)], services: [EchoService(), probe])
        let returned = SentCounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await server.run()
                returned.increment()
            }
            let port = try await server.listeningAddresses()[0].port!
            let client = WireClient(target: .tcp(host: "127.0.0.1", port: port))
            defer { client.close() }
            // Warm the connection so the slow call is in flight when we shut down.
            _ = try await client.unary(Echo.get, request: .init())
            async let slow = client.unary(ProbeService.slow, request: .with { $0.text = "slow"; $0.delayMs = 400 })
            var starts = probe.starts.makeAsyncIterator()
            _ = await starts.next()
            server.beginGracefulShutdown()
            let reply = try await slow
            #expect(reply.text == "slow")
            // After the final GOAWAY the listener is closed: a new call cannot connect.
            try await Task.sleep(for: .milliseconds(1200))
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(Echo.get, request: .init(), options: CallOptions(timeout: .seconds(2)))
            }
            #expect(error?.code == .unavailable)
            // run() returns by itself once connections have closed (bounded wait).
            for _ in 0..<100 where returned.value == 0 {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(returned.value == 1)
        }
    }

    @Test("keepalive closes a connection whose peer stops answering")
    func keepaliveTimeout() async throws {
        // A TCP peer that accepts and reads but never answers, not even the preface.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        var configuration = WireClient.Configuration()
        configuration.connection.keepalive = .init(interval: .milliseconds(100), timeout: .milliseconds(200))
        let client = WireClient(target: .tcp(host: "127.0.0.1", port: silent.localAddress!.port!), configuration: configuration)
        defer { client.close() }
        let error = await #expect(throws: RPCError.self) {
            _ = try await client.unary(Echo.get, request: .init(), options: CallOptions(timeout: .seconds(10)))
        }
        #expect(error?.code == .unavailable)
    }
}

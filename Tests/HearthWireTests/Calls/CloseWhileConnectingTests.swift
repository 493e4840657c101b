import Foundation
import HearthTesting
import HearthWire
import NIOCore
import NIOPosix
import Synchronization
import Testing

@Suite("Closing a client")
struct CloseWhileConnectingTests {
    @Test("close() while a call waits for its connection fails the call with UNAVAILABLE instead of leaving it waiting")
    func closeWhileConnecting() async throws {
        // A listener that never accepts, with a backlog of 0: once one connection sits in its queue, the kernel
        // drops further SYNs, so a new connection stays in progress (until its connect timeout).
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 0)
            .serverChannelOption(.autoRead, value: false)
            .bind(host: "127.0.0.1", port: 0).get()
        defer { listener.close(promise: nil) }
        let port = listener.localAddress!.port!
        var fillers: [any Channel] = []
        defer { for filler in fillers { filler.close(promise: nil) } }
        // Fill the queue: connect until a connection attempt no longer completes (at most 8 tries).
        for _ in 0..<8 {
            let attempt = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(300)).connect(host: "127.0.0.1", port: port)
            guard let channel = try? await attempt.get() else { break }
            fillers.append(channel)
        }

        var configuration = WireClient.Configuration()
        configuration.connectTimeout = .seconds(60)
        let client = WireClient(target: .tcp(host: "127.0.0.1", port: port), configuration: configuration)
        let outcome = Mutex<Result<Void, RPCError>?>(nil)
        let call = Task {
            do {
                _ = try await client.unary(Echo.get, request: .init(), options: CallOptions(timeout: .seconds(60)))
                outcome.withLock { $0 = .success(()) }
            } catch let error as RPCError {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        try await Task.sleep(for: .milliseconds(200))  // the call is now waiting for the connection
        client.close()
        // Bounded: before the fix the call waited for ever (its continuation was dropped by close()).
        for _ in 0..<100 where outcome.withLock({ $0 == nil }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let result = try #require(outcome.withLock { $0 }, "the call still waits 10 s after close()")
        guard case .failure(let error) = result else {
            Issue.record("the call succeeded")
            return
        }
        #expect(error.code == .unavailable, "\(error)")
        #expect(error.message.contains("closed"), "\(error)")
        _ = call
    }
}

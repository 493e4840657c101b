import FuzzSupport
public import NIOCore
import NIOEmbedded
import Synchronization

@testable public import HearthWire

/// One server connection as ``WireServer`` makes it (``ServerConnectionHandler`` over nghttp2, the budgets,
/// the call admission, calls run as tasks on the connection's event loop), on an `EmbeddedChannel` instead
/// of a socket, serving ``FuzzEchoService``.
///
/// Everything runs on the calling thread, in an order fixed by what is fed in: bytes move and calls run
/// only inside ``receive(_:)``, ``advance(by:)`` and the other calls here, and time moves only when
/// ``advance(by:)`` says so. Used by the wire fuzz target and to record the seed corpus.
public final class EmbeddedConnection {
    let channel: EmbeddedChannel
    let budget: WireBudget
    private let counts = CallCounts()
    /// What the server wrote, when ``keepsOutbound`` is set (else it is thrown away).
    public private(set) var outbound: [ByteBuffer] = []
    public var keepsOutbound = false

    public init(configuration: WireServer.Configuration) {
        let (calls, continuation) = AsyncStream<ServerCall>.makeStream()
        budget = WireBudget(limits: configuration.connection.budgets)
        let starter = CallStart(
            configuration: configuration, router: ServiceRouter(services: [FuzzEchoService()]),
            admission: CallAdmission(limit: configuration.maxRunningHandlers), budget: ConnectionBudget(server: budget))
        let handler = ServerConnectionHandler(starter: starter, calls: continuation)
        channel = EmbeddedChannel()
        // As `WireServer` serves a connection with `.eventLoop` execution: each call a task on its loop.
        let executor = EventLoopTaskExecutor(eventLoop: channel.embeddedEventLoop)
        Task(executorPreference: executor) { [counts] in
            for await call in calls {
                counts.started.add(1, ordering: .relaxed)
                Task(executorPreference: executor) {
                    await call.run()
                    counts.finished.add(1, ordering: .relaxed)
                }
            }
        }
        do {
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        } catch {
            fatalError("cannot set up the embedded connection: \(error)")
        }
        pump()
    }

    /// Whether the server has not closed the connection.
    public var isActive: Bool { channel.isActive }

    /// One read from the peer, then whatever the server does about it.
    public func receive(_ bytes: some Sequence<UInt8>) {
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
        } catch {
            // The handler closed the channel during the read (a protocol error): nothing more comes in.
        }
        pump()
    }

    /// Moves the loop's clock on: timers that fall due run.
    public func advance(by duration: TimeAmount) {
        channel.embeddedEventLoop.advanceTime(by: duration)
        pump()
    }

    /// The double GOAWAY of a graceful server shutdown, its grace period passed.
    public func beginGracefulShutdown() {
        channel.pipeline.fireUserInboundEventTriggered(WireServer.GracefulShutdownEvent())
        pump()
        advance(by: .seconds(2))
    }

    /// Runs the loop (calls included) and collects what the server writes, until nothing moves.
    public func pump() {
        for _ in 0..<32 {
            channel.embeddedEventLoop.run()
            var wrote = false
            while let buffer = try? channel.readOutbound(as: ByteBuffer.self) {
                if keepsOutbound { outbound.append(buffer) }
                wrote = true
            }
            if !wrote { return }
        }
    }

    /// Takes what the server wrote since the last call.
    public func takeOutbound() -> [ByteBuffer] {
        defer { outbound = [] }
        return outbound
    }

    /// Closes the connection as a peer going away would, and checks that nothing is left behind: every call
    /// it started has finished, and no nghttp2 session, partial-message byte or queued outbound byte is
    /// still counted by the server's budgets.
    public func closeAndCheck() {
        _ = try? channel.close().wait()
        pump()
        let started = counts.started.load(ordering: .relaxed)
        let finished = counts.finished.load(ordering: .relaxed)
        fuzzCheck(started == finished, "\(started - finished) of \(started) calls still running after the connection closed")
        let statistics = budget.statistics
        fuzzCheck(statistics.sessionsAlive == 0, "\(statistics.sessionsAlive) nghttp2 sessions alive after close")
        fuzzCheck(
            statistics.partialMessageBytes == 0,
            "\(statistics.partialMessageBytes) partial-message bytes still charged after close")
        fuzzCheck(
            statistics.queuedOutboundBytes == 0,
            "\(statistics.queuedOutboundBytes) queued outbound bytes still charged after close")
        _ = try? channel.embeddedEventLoop.syncShutdownGracefully()
    }
}

/// Calls a connection started and finished (touched only on one thread; atomics to be `Sendable`).
final class CallCounts: Sendable {
    let started = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
}

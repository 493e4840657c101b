import HearthTesting
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HearthWire

/// `CallSpawner` keeps what the connection's task group gave: its serving task returns only once the
/// connection has finished and every call it started has ended.
@Suite("Call spawner")
struct CallSpawnerTests {
    /// What the calls and the serving task did.
    final class Probe: Sendable {
        private let calls = Atomic<Int>(0)
        private let finished = Atomic<Bool>(false)
        var ran: Int { calls.load(ordering: .acquiring) }
        var done: Bool { finished.load(ordering: .acquiring) }
        func callRan() { calls.add(1, ordering: .releasing) }
        func servingTaskReturned() { finished.store(true, ordering: .releasing) }
    }

    /// A call whose handler waits until `gate` opens, and records that it ran.
    private static func call(gate: Gate, probe: Probe) -> ServerCall {
        let handler = ServiceRouter.Handler(kind: .unary) { _, _ in
            await gate.wait()
            probe.callRan()
        }
        return ServerCall(
            bridge: StreamBridge(limits: .init()) { _ in },
            context: ServerContext(path: "/test.Svc/Wait", requestMetadata: [:], deadline: nil, peer: "test"),
            handler: handler, admission: CallAdmission(limit: 10))
    }

    /// Runs the serving task's wait; checks that it is still waiting after a while, then that `release` lets
    /// it return.
    private static func expectWaiting(
        _ spawner: CallSpawner, probe: Probe, until release: () -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await spawner.waitUntilDone()
                probe.servingTaskReturned()
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(!probe.done)
            release()
            try await group.next()
        }
        #expect(probe.done)
    }

    @Test("waiting returns at once for a finished connection that started no call")
    func finishedEmpty() async {
        let spawner = CallSpawner(executor: nil)
        spawner.finish()
        spawner.finish()  // twice is allowed
        await spawner.waitUntilDone()
    }

    @Test("the serving task waits for the connection to finish and then for every call it started", arguments: [false, true])
    func waitsForCalls(onEventLoop: Bool) async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let spawner = CallSpawner(executor: onEventLoop ? EventLoopTaskExecutor(eventLoop: loop) : nil)
        let gate = Gate()
        let probe = Probe()
        // Calls are started from the connection's event loop.
        try await loop.submit {
            for _ in 0..<3 { spawner.start(Self.call(gate: gate, probe: probe)) }
        }.get()
        spawner.finish()
        // Finished, but three calls still run: the serving task must wait for them.
        try await Self.expectWaiting(spawner, probe: probe, until: gate.open)
        #expect(probe.ran == 3)
    }

    @Test("calls that end before the connection finishes do not end the wait early")
    func callsBeforeFinish() async throws {
        let spawner = CallSpawner(executor: nil)
        let gate = Gate()
        let probe = Probe()
        gate.open()
        spawner.start(Self.call(gate: gate, probe: probe))
        for _ in 0..<200 where probe.ran < 1 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(probe.ran == 1)
        try await Self.expectWaiting(spawner, probe: probe, until: spawner.finish)
    }
}

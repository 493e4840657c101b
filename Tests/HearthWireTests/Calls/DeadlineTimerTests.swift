import NIOCore
import NIOPosix
import Synchronization
import Testing

import HearthWire

/// The deadline timer on an event loop and off one.
@Suite("DeadlineTimer: on the caller's event loop, else a task")
struct DeadlineTimerTests {
    /// What the timers did, shared with their bodies.
    final class Record: Sendable {
        let fired = Atomic(0)
        let cancelledFired = Atomic(0)
        let onItsLoop = Atomic(false)

        /// Waits at most `limit` until `count` timers fired; returns whether they did.
        func waitFor(_ count: Int, limit: Duration = .seconds(10)) async -> Bool {
            let deadline = ContinuousClock.now + limit
            while fired.load(ordering: .acquiring) < count, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return fired.load(ordering: .acquiring) >= count
        }
    }

    @Test("armed on a loop it fires on that loop; a cancelled one never fires")
    func onLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let record = Record()
        try await loop.submit {
            _ = DeadlineTimer(after: .milliseconds(20)) {
                record.onItsLoop.store(loop.inEventLoop, ordering: .releasing)
                record.fired.add(1, ordering: .releasing)
            }
            DeadlineTimer(after: .milliseconds(10)) { record.cancelledFired.add(1, ordering: .releasing) }.cancel()
        }.get()
        #expect(await record.waitFor(1))
        let onItsLoop = record.onItsLoop.load(ordering: .acquiring)
        #expect(onItsLoop)
        // Well past the cancelled timer's time: a later timer on the same loop shows the loop ran on.
        try await loop.submit { _ = DeadlineTimer(after: .milliseconds(100)) { record.fired.add(1, ordering: .releasing) } }.get()
        #expect(await record.waitFor(2))
        let cancelledFired = record.cancelledFired.load(ordering: .acquiring)
        #expect(cancelledFired == 0)
    }

    @Test("off a loop it fires from a task; cancelled, it does not; cancelling twice is harmless")
    func offLoop() async throws {
        let record = Record()
        _ = DeadlineTimer(after: .milliseconds(10)) { record.fired.add(1, ordering: .releasing) }
        let cancelled = DeadlineTimer(after: .milliseconds(10)) { record.cancelledFired.add(1, ordering: .releasing) }
        cancelled.cancel()
        cancelled.cancel()
        #expect(await record.waitFor(1))
        _ = DeadlineTimer(after: .milliseconds(100)) { record.fired.add(1, ordering: .releasing) }
        #expect(await record.waitFor(2))
        let cancelledFired = record.cancelledFired.load(ordering: .acquiring)
        #expect(cancelledFired == 0)
    }
}

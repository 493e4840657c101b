import NIOCore
import NIOPosix
import Testing

@testable import HearthWire

/// A sleep on an event loop that a ring from another thread ends early.
@Suite("SleepAlarm: a ring ends the sleep, before or during it; cancellation still throws")
struct SleepAlarmTests {
    /// Far longer than any test waits: a sleep that returns was ended early, not waited out.
    static let long = Duration.seconds(60)

    /// Runs `body` and fails unless it finished within `limit` (a hung sleep fails instead of hanging CI).
    static func bounded(
        limit: Duration = .seconds(10), _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            let finished = try await group.next()!
            group.cancelAll()
            #expect(finished, "the sleep was not ended by its alarm")
        }
    }

    /// Sleeps 30 ms with `alarm` and checks that nothing cut the sleep short.
    static func expectWholeSleep(on alarm: SleepAlarm, _ loop: any EventLoop) async throws {
        let started = ContinuousClock.now
        try await alarm.sleep(for: .milliseconds(30), on: loop)
        #expect(ContinuousClock.now - started >= .milliseconds(30))
    }

    @Test("a ring during the sleep ends it, without an error")
    func ringDuring() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let alarm = SleepAlarm()
        try await Self.bounded {
            async let slept: Void = alarm.sleep(for: Self.long, on: loop)
            try await Task.sleep(for: .milliseconds(50))
            alarm.ring()
            try await slept
        }
    }

    @Test("a ring before the sleep is kept for it, once")
    func ringBefore() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let alarm = SleepAlarm()
        alarm.ring()
        alarm.ring()
        try await Self.bounded { try await alarm.sleep(for: Self.long, on: loop) }
        // Both rings were used up by that sleep: the next one lasts its whole duration.
        try await Self.expectWholeSleep(on: alarm, loop)
    }

    @Test("cancelling the sleeping task throws CancellationError; the alarm still works after")
    func cancelled() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let alarm = SleepAlarm()
        try await Self.bounded {
            let sleeper = Task { try await alarm.sleep(for: Self.long, on: loop) }
            try await Task.sleep(for: .milliseconds(20))
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
            // Already cancelled with a ring waiting: still cancelled, not a normal return.
            alarm.ring()
            let cancelledFirst = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await alarm.sleep(for: Self.long, on: loop)
            }
            await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
            alarm.ring()
            try await alarm.sleep(for: Self.long, on: loop)
        }
    }

    @Test("reset() forgets a ring kept for the next sleep")
    func reset() async throws {
        let alarm = SleepAlarm()
        alarm.ring()
        alarm.reset()
        try await Self.expectWholeSleep(on: alarm, MultiThreadedEventLoopGroup.singleton.next())
    }

    @Test("rings from another thread racing the sleeps: every sleep ends, none is lost")
    func racingRings() async throws {
        // A loop of its own: the shared one also carries other suites' connections when tests run in parallel.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let alarm = SleepAlarm()
        // Bounded generously: on a loaded machine a round can take milliseconds; a lost ring hangs for good.
        try await Self.bounded(limit: .seconds(60)) {
            for _ in 0..<500 {
                // Each round's ring may land before the sleep arms, while it sleeps, or as it ends.
                let ringer = Task.detached { alarm.ring() }
                try await alarm.sleep(for: Self.long, on: loop)
                await ringer.value
                alarm.reset()
            }
        }
        try await group.shutdownGracefully()
    }

    @Test("the loop shutting down ends the sleep with CancellationError")
    func loopShutdown() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let alarm = SleepAlarm()
        try await Self.bounded {
            let sleeper = Task { try await alarm.sleep(for: Self.long, on: group.next()) }
            try await Task.sleep(for: .milliseconds(20))
            try await group.shutdownGracefully()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
        }
    }
}

import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HearthWire

/// `sleepOnEventLoop`: the loop's own timer for a task running on a loop, `Task.sleep` elsewhere.
@Suite("sleepOnEventLoop: the loop's timer on a loop, Task.sleep elsewhere")
struct LoopSleepTests {
    @Test("on a loop it waits its time and resumes on the loop; a past deadline returns at once")
    func onLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let (waited, onLoopAfter, past, suspended) = try await Task(
            executorPreference: EventLoopTaskExecutor(eventLoop: loop)
        ) {
            let start = ContinuousClock.now
            try await sleepOnEventLoop(until: start + .milliseconds(30))
            let waited = ContinuousClock.now - start
            let onLoopAfter = loop.inEventLoop
            // Queued on the loop behind this task: it runs first only if the sleep below gives up the loop.
            let queuedRan = Atomic(false)
            loop.execute { queuedRan.store(true, ordering: .relaxed) }
            let before = ContinuousClock.now
            try await sleepOnEventLoop(until: before - .seconds(1))
            return (waited, onLoopAfter, ContinuousClock.now - before, queuedRan.load(ordering: .relaxed))
        }.value
        #expect(waited >= .milliseconds(30))
        #expect(onLoopAfter, "resumed on its loop")
        #expect(past < .seconds(1), "a deadline already past does not wait")
        #expect(!suspended, "a deadline already past returns without giving up the loop")
    }

    @Test("cancelled on a loop it throws CancellationError at once, long before its deadline")
    func cancelledOnLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let started = ContinuousClock.now
        let task = Task(executorPreference: EventLoopTaskExecutor(eventLoop: loop)) { () -> (any Error)? in
            do {
                try await sleepOnEventLoop(until: .now + .seconds(60))
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        let error = await task.value
        #expect(error is CancellationError)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("a task already cancelled throws without waiting, on a loop and off one")
    func alreadyCancelled() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        for preference in [EventLoopTaskExecutor(eventLoop: loop), nil] as [EventLoopTaskExecutor?] {
            let task = Task(executorPreference: preference) { () -> (any Error)? in
                withUnsafeCurrentTask { $0?.cancel() }
                do {
                    try await sleepOnEventLoop(until: .now + .seconds(60))
                    return nil
                } catch {
                    return error
                }
            }
            #expect(await task.value is CancellationError)
        }
    }

    @Test("off a loop it sleeps like Task.sleep")
    func offLoop() async throws {
        let start = ContinuousClock.now
        try await sleepOnEventLoop(until: start + .milliseconds(20))
        #expect(ContinuousClock.now - start >= .milliseconds(20))
    }
}

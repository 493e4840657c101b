internal import NIOCore
internal import NIOPosix
import Synchronization

/// Sleeps until `deadline` on the timer of the event loop the caller runs on, when it runs on one (a handler
/// or stream pump on its connection's loop); elsewhere it is `Task.sleep`.
///
/// A `Task.sleep` arms a libdispatch timer: when it fires, a thread of the dispatch pool wakes only to
/// enqueue the task back on its loop, which is woken in turn. On the loop's own timer list the wait costs
/// neither wake-up, which matters to a watch that waits out its update interval once per response.
///
/// - Throws: `CancellationError` when the task is cancelled first (at once, not at the deadline).
public func sleepOnEventLoop(until deadline: ContinuousClock.Instant) async throws {
    guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else {
        try await Task.sleep(until: deadline, clock: .continuous)
        return
    }
    let delay = ContinuousClock.now.duration(to: deadline)
    guard delay > .zero else { return try Task.checkCancellation() }
    let sleeper = LoopSleeper()
    try await withTaskCancellationHandler {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            sleeper.wait(continuation, on: loop, for: delay)
        }
    } onCancel: {
        sleeper.end(throwing: CancellationError())
    }
}

/// One sleep: resumed exactly once, by its timer or by cancellation, whichever comes first.
private final class LoopSleeper: Sendable {
    private enum State {
        case idle
        case waiting(UnsafeContinuation<Void, any Error>, Scheduled<Void>)
        case ended
    }

    private let state = Mutex(State.idle)

    func wait(_ continuation: UnsafeContinuation<Void, any Error>, on loop: any EventLoop, for delay: Duration) {
        let scheduled = loop.scheduleTask(in: .nanoseconds(delay.nanosecondsClamped)) { self.end(throwing: nil) }
        let cancelled = state.withLock { state -> Bool in
            guard case .idle = state else { return true }  // cancelled before the timer was armed
            state = .waiting(continuation, scheduled)
            return false
        }
        if cancelled {
            scheduled.cancel()
            continuation.resume(throwing: CancellationError())
        }
    }

    func end(throwing error: (any Error)?) {
        let taken = state.withLock { state -> (UnsafeContinuation<Void, any Error>, Scheduled<Void>)? in
            defer { state = .ended }
            guard case .waiting(let continuation, let scheduled) = state else { return nil }
            return (continuation, scheduled)
        }
        guard let (continuation, scheduled) = taken else { return }
        if let error {
            scheduled.cancel()
            continuation.resume(throwing: error)
        } else {
            continuation.resume()
        }
    }
}

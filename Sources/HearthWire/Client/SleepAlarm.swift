internal import NIOCore
import Synchronization

/// Ends a ``ClientCall/sleep(for:endingEarlyOn:)`` early, from any thread.
///
/// A writer that lets messages gather for a while before it writes sleeps with an alarm, and whoever queues
/// something that must not wait (a command's result) rings it. A ring while nobody sleeps is kept for the
/// next sleep, which then returns at once, so a ring between the sleeper's last look at its queue and the
/// start of its sleep is never lost. The sleeper calls ``reset()`` just before that look: a ring the look
/// answers then does not cut a later sleep short.
///
/// One task sleeps on an alarm at a time.
public final class SleepAlarm: Sendable {
    private enum State {
        case idle
        /// Rung with nobody asleep: the next sleep returns at once.
        case rung
        /// A sleep is waiting on this timer.
        case armed(Scheduled<Void>)
        /// The sleep's timer was cancelled by a ring: the sleep ends normally, not as cancelled.
        case woken
    }

    private let state = Mutex(State.idle)

    public init() {}

    /// Ends the current sleep now, or the next one as soon as it begins.
    public func ring() {
        let timer = state.withLock { state -> Scheduled<Void>? in
            switch state {
            case .armed(let timer):
                state = .woken
                return timer
            case .idle:
                state = .rung
                return nil
            case .rung, .woken:
                return nil
            }
        }
        timer?.cancel()  // outside the lock: the timer's failure runs callbacks
    }

    /// Forgets a ring kept for the next sleep. Call it before looking at what the rings are about.
    public func reset() {
        state.withLock { state in
            if case .rung = state { state = .idle }
        }
    }

    /// Sleeps for `duration` on `eventLoop`'s timer, unless the alarm rings first (or had rung).
    /// - Throws: `CancellationError` when the task is cancelled (before or meanwhile), or the loop shuts down.
    func sleep(for duration: Duration, on eventLoop: any EventLoop) async throws {
        try Task.checkCancellation()
        let timer = eventLoop.scheduleTask(in: .nanoseconds(max(0, duration.nanosecondsClamped))) {}
        let rang = state.withLock { state -> Bool in
            switch state {
            case .rung:
                state = .idle
                return true
            case .idle:
                state = .armed(timer)
                return false
            case .armed, .woken:
                preconditionFailure("two tasks sleep on one SleepAlarm")
            }
        }
        if rang {
            timer.cancel()
            return
        }
        var failed = false
        do {
            try await withTaskCancellationHandler {
                try await timer.futureResult.get()
            } onCancel: {
                timer.cancel()
            }
        } catch {
            // The timer fails only when cancelled (by a ring, or by the task's cancellation) or when its loop
            // shuts down.
            failed = true
        }
        let woken = state.withLock { state -> Bool in
            defer { state = .idle }
            if case .woken = state { return true }
            return false
        }
        if failed, !woken || Task.isCancelled { throw CancellationError() }
    }
}

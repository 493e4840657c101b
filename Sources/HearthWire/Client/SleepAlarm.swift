internal import NIOCore
import Synchronization

/// Ends a ``ClientCall/sleep(for:endingEarlyOn:)`` early, from any thread.
///
/// A writer that lets messages gather for a while before it writes sleeps with an alarm, and whoever queues
/// something that must not wait (a command's result) rings it. A ring while nobody sleeps is kept for the
/// next sleep, which then returns at once: a ring between the sleeper's last look at its queue and the
/// start of its sleep is never lost.
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
        timer?.cancel()
    }

    /// Sleeps for `duration` on `eventLoop`'s timer, unless the alarm rings first (or had rung).
    /// - Throws: `CancellationError` when the task is cancelled meanwhile, or the loop shuts down.
    func sleep(for duration: Duration, on eventLoop: any EventLoop) async throws {
        let timer = eventLoop.scheduleTask(in: .nanoseconds(max(0, duration.nanosecondsClamped))) {}
        let rang = state.withLock { state -> Bool in
            if case .rung = state {
                state = .idle
                return true
            }
            state = .armed(timer)
            return false
        }
        if rang {
            timer.cancel()
            return
        }
        let outcome: Result<Void, any Error> = await withTaskCancellationHandler {
            await Result { try await timer.futureResult.get() }
        } onCancel: {
            timer.cancel()
        }
        let woken = state.withLock { state -> Bool in
            defer { state = .idle }
            if case .woken = state { return true }
            return false
        }
        if case .failure = outcome, !woken || Task.isCancelled { throw CancellationError() }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing body.
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

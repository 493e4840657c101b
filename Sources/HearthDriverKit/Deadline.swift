import HearthWire
import Synchronization

/// Runs `work` with a time limit and returns when either comes first: its result, or nil at the limit.
///
/// Unlike a task group, this never waits for `work` to notice cancellation: a handler that hangs and
/// ignores cancellation is abandoned (cancelled, its result dropped), so the caller always gets an answer.
/// Cancelling the calling task ends the wait with `CancellationError` and cancels `work`.
///
/// `work` runs on `executor` (nil: the global executor). The limit is a ``DeadlineTimer``: called on an
/// event loop, it is that loop's timer, and neither it nor `work` wakes another thread.
func withTimeLimit<T: Sendable>(
    _ limit: Duration, on executor: (any TaskExecutor)? = nil, _ work: @escaping @Sendable () async throws -> T
) async -> Result<T, any Error>? {
    let race = Race<T>()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            race.arm(continuation)
            let worker = Task(executorPreference: executor) {
                let outcome: Result<T, any Error>
                do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
                race.finish(outcome)
            }
            race.setWorker(worker)
            race.setTimer(DeadlineTimer(after: limit) { race.finish(nil) })
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The one-shot state of ``withTimeLimit(_:on:_:)``: the first outcome resumes the waiter and cancels the rest.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<T, any Error>?, Never>?
        var outcome: Result<T, any Error>??
        var worker: Task<Void, Never>?
        var timer: DeadlineTimer?
    }

    private let state = Mutex(State())

    func arm(_ continuation: CheckedContinuation<Result<T, any Error>?, Never>) {
        let early = state.withLock { s -> Result<T, any Error>?? in
            if let outcome = s.outcome { return outcome }  // cancelled before the wait began
            s.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func setWorker(_ task: Task<Void, Never>) {
        let done = state.withLock { s in
            s.worker = task
            return s.outcome != nil
        }
        if done { task.cancel() }
    }

    func setTimer(_ timer: DeadlineTimer) {
        let done = state.withLock { s in
            s.timer = timer
            return s.outcome != nil
        }
        if done { timer.cancel() }
    }

    /// Records the first outcome (later ones are ignored), resumes the waiter, cancels the worker and timer.
    func finish(_ outcome: Result<T, any Error>?) {
        let (continuation, worker, timer) = state.withLock { s -> (CheckedContinuation<Result<T, any Error>?, Never>?, Task<Void, Never>?, DeadlineTimer?) in
            guard s.outcome == nil else { return (nil, nil, nil) }
            s.outcome = .some(outcome)
            defer { s.continuation = nil }
            return (s.continuation, s.worker, s.timer)
        }
        continuation?.resume(returning: outcome)
        worker?.cancel()
        timer?.cancel()
    }
}

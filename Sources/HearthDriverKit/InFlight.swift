import HearthProto
import HearthWire
import Synchronization

/// The commands and writes a session is handling, each answered once: by its handler's result, or by a
/// deadline result when its time limit passes first.
///
/// A handler runs in a task of its own, and its limit is a ``DeadlineTimer`` (the reading event loop's own
/// timer). At the limit the caller is answered at once and the task is cancelled: a handler that hangs and
/// ignores cancellation is abandoned, its late result dropped, so the hub always gets its answer. Nothing
/// waits for the handler beside its own task: one task per command, not a second one waiting for it.
final class InFlight: Sendable {
    private struct Entry {
        var task: Task<Void, Never>
        var timer: DeadlineTimer?
    }

    private let entries = Mutex<[UInt64: Entry]>([:])

    /// Runs `body` in a task on `executor` (nil: the global executor), and calls `answer` once with the first
    /// of its result and `late()`, made when `limit` has passed.
    func start(
        _ id: UInt64, limit: Duration, on executor: (any TaskExecutor)?,
        late: @escaping @Sendable () -> Hearth_V1_CommandResult,
        answer: @escaping @Sendable (Hearth_V1_CommandResult) -> Void,
        _ body: @escaping @Sendable () async -> Hearth_V1_CommandResult
    ) {
        entries.withLock { entries in
            entries[id] = Entry(
                task: Task(executorPreference: executor) {
                    let result = await body()
                    guard let entry = self.claim(id) else { return }  // the limit came first, or the session ended
                    entry.timer?.cancel()
                    answer(result)
                })
        }
        let timer = DeadlineTimer(after: limit) {
            guard let entry = self.claim(id) else { return }
            entry.task.cancel()
            answer(late())
        }
        let answered = entries.withLock { entries in
            guard entries[id] != nil else { return true }
            entries[id]!.timer = timer
            return false
        }
        if answered { timer.cancel() }
    }

    /// Takes the entry if it is still unanswered: whoever takes it answers.
    private func claim(_ id: UInt64) -> Entry? {
        entries.withLock { $0.removeValue(forKey: id) }
    }

    /// Ends the session's handlers: each task is cancelled and nothing more is answered.
    func cancelAll() {
        let all = entries.withLock { entries in
            defer { entries = [:] }
            return Array(entries.values)
        }
        for entry in all {
            entry.timer?.cancel()
            entry.task.cancel()
        }
    }
}

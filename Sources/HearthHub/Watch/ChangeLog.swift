import DequeModule
import Synchronization

/// The published, committed changes: a bounded ring shared by every watcher.
///
/// Watchers do not have queues of their own: each keeps a cursor (a revision) and reads from here at its own
/// pace, so a slow watcher costs one integer, never a growing buffer, and never slows the engine. A watcher
/// that falls so far behind that its cursor leaves the ring is told to re-list (the last resort).
final class ChangeLog: Sendable {
    struct State {
        var entries: Deque<LogEntry> = []
        /// The newest committed revision.
        var published: UInt64
        /// A watch may resume from any revision ≥ this.
        var oldestResumable: UInt64
        var waiters: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWaiter = 0
    }

    enum Read {
        /// Entries after the cursor (whole revisions), and the revision to continue from.
        case entries([LogEntry], through: UInt64)
        /// The cursor is older than the ring holds.
        case evicted
    }

    let capacity: Int
    private let state: Mutex<State>

    /// - Parameters:
    ///   - capacity: entries kept for resuming and for slow watchers.
    ///   - published: the committed revision at start.
    ///   - history: stored entries, oldest first, all ≤ `published`.
    init(capacity: Int, published: UInt64, history: [LogEntry]) {
        self.capacity = max(capacity, 16)
        // Keep the newest entries, never splitting a revision at the ring's start.
        var start = max(0, history.count - self.capacity)
        while start > 0, start < history.count, history[start].revision == history[start - 1].revision { start += 1 }
        let entries = Deque(history[start...])
        let oldest =
            start > 0 ? history[start - 1].revision : (history.first.map { $0.revision - 1 } ?? published)
        self.state = Mutex(State(entries: entries, published: published, oldestResumable: oldest))
    }

    var published: UInt64 { state.withLock { $0.published } }
    var oldestResumable: UInt64 { state.withLock { $0.oldestResumable } }

    /// Appends the entries of committed revisions (in order) and wakes every watcher.
    func publish(_ new: [LogEntry], through revision: UInt64) {
        let waiters = state.withLock { s -> [AsyncStream<Void>.Continuation] in
            s.entries.append(contentsOf: new)
            if s.entries.count > capacity {
                // Evict whole revisions only.
                var drop = s.entries.count - capacity
                while drop < s.entries.count, s.entries[drop].revision == s.entries[drop - 1].revision { drop += 1 }
                s.oldestResumable = s.entries[drop - 1].revision
                s.entries.removeFirst(drop)
            }
            s.published = max(s.published, revision)
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.yield() }
    }

    /// Entries after `cursor`: at most about `limit` (never splitting a revision), or all when `limit` is nil.
    func read(after cursor: UInt64, limit: Int?) -> Read {
        state.withLock { s in
            if cursor < s.oldestResumable { return .evicted }
            guard cursor < s.published else { return .entries([], through: cursor) }
            // Binary search for the first entry after the cursor.
            var low = 0
            var high = s.entries.count
            while low < high {
                let mid = (low + high) / 2
                if s.entries[mid].revision <= cursor { low = mid + 1 } else { high = mid }
            }
            var end = s.entries.count
            if let limit, end - low > limit {
                end = low + limit
                while end < s.entries.count, s.entries[end].revision == s.entries[end - 1].revision { end += 1 }
            }
            let slice = Array(s.entries[low..<end])
            let through = end == s.entries.count ? s.published : slice.last?.revision ?? cursor
            return .entries(slice, through: through)
        }
    }

    /// How many entries lie after `cursor`.
    func backlog(after cursor: UInt64) -> Int {
        state.withLock { s in
            guard let last = s.entries.last, last.revision > cursor else { return 0 }
            var low = 0
            var high = s.entries.count
            while low < high {
                let mid = (low + high) / 2
                if s.entries[mid].revision <= cursor { low = mid + 1 } else { high = mid }
            }
            return s.entries.count - low
        }
    }

    /// Waits until the published revision passes `cursor`, or `timeout` elapses. Returns whether it passed.
    func waitForChanges(after cursor: UInt64, timeout: Duration) async -> Bool {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (id, ready) = state.withLock { s -> (Int, Bool) in
            if s.published > cursor { return (-1, true) }
            let id = s.nextWaiter
            s.nextWaiter += 1
            s.waiters[id] = continuation
            return (id, false)
        }
        if ready { return true }
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: id) } }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in stream { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            continuation.finish()
            return first || self.published > cursor
        }
    }
}

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
        /// The revision of each entry, beside it: searched without touching the entries.
        var revisions: Deque<UInt64> = []
        /// What the entries hold, as ``LogEntry/retainedBytes`` counts it.
        var bytes = 0
        /// The newest committed revision.
        var published: UInt64
        /// A watch may resume from any revision ≥ this.
        var oldestResumable: UInt64
        var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextSubscriber = 0

        /// The index of the first entry after `cursor`.
        func firstIndex(after cursor: UInt64) -> Int {
            var low = 0
            var high = entries.count
            while low < high {
                let mid = (low + high) / 2
                if revisions[mid] <= cursor { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    enum Read {
        /// Entries after the cursor (whole revisions), the revision to continue from, and whether the backlog
        /// was long enough that they should be coalesced.
        case entries([LogEntry], through: UInt64, coalesce: Bool)
        /// The cursor is older than the ring holds.
        case evicted
    }

    /// A watcher's doorbell: rings (at most one pending ring) whenever something is published.
    struct Subscription: Sendable {
        let id: Int
        let rings: AsyncStream<Void>
        /// Rings it from elsewhere (a watcher's progress ticker).
        let ring: AsyncStream<Void>.Continuation
    }

    let capacity: Int
    /// The most memory the entries may hold (``LogEntry/retainedBytes``); the oldest revisions go first.
    let byteCapacity: Int
    private let state: Mutex<State>

    /// - Parameters:
    ///   - capacity: entries kept for resuming and for slow watchers (at least 1).
    ///   - byteCapacity: the memory those entries may hold at most: a log of whole-device changes (a driver
    ///     announcing thousands of devices, a restart marking every trait unconfirmed) keeps fewer entries.
    ///   - published: the committed revision at start.
    ///   - history: stored entries, oldest first, all ≤ `published`.
    init(capacity: Int, byteCapacity: Int = .max, published: UInt64, history: [LogEntry]) {
        self.capacity = max(capacity, 1)
        self.byteCapacity = max(byteCapacity, 1)
        var state = State(published: published, oldestResumable: history.first.map { $0.revision - 1 } ?? published)
        state.entries = Deque(history)
        state.revisions = Deque(history.map(\.revision))
        state.bytes = history.reduce(0) { $0 + $1.retainedBytes }
        Self.evict(&state, capacity: self.capacity, byteCapacity: self.byteCapacity)
        self.state = Mutex(state)
    }

    /// Drops the oldest whole revisions until the entries fit both capacities.
    private static func evict(_ s: inout State, capacity: Int, byteCapacity: Int) {
        guard s.entries.count > capacity || s.bytes > byteCapacity else { return }
        var drop = 0
        var bytes = s.bytes
        while drop < s.entries.count, s.entries.count - drop > capacity || bytes > byteCapacity {
            bytes -= s.entries[drop].retainedBytes
            drop += 1
        }
        // Evict whole revisions only.
        while drop < s.entries.count, s.revisions[drop] == s.revisions[drop - 1] {
            bytes -= s.entries[drop].retainedBytes
            drop += 1
        }
        s.oldestResumable = s.revisions[drop - 1]
        s.entries.removeFirst(drop)
        s.revisions.removeFirst(drop)
        s.bytes = bytes
    }

    var published: UInt64 { state.withLock { $0.published } }
    /// Every retained entry, oldest first.
    var entries: [LogEntry] { state.withLock { Array($0.entries) } }
    var oldestResumable: UInt64 { state.withLock { $0.oldestResumable } }
    /// The retained entries and what they hold (``LogEntry/retainedBytes``).
    var size: (entries: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.bytes) } }

    /// Appends the entries of committed revisions (in order) and rings every subscriber.
    func publish(_ new: [LogEntry], through revision: UInt64) {
        let subscribers = state.withLock { s -> [AsyncStream<Void>.Continuation] in
            s.entries.append(contentsOf: new)
            s.revisions.append(contentsOf: new.lazy.map(\.revision))
            for entry in new { s.bytes += entry.retainedBytes }
            Self.evict(&s, capacity: capacity, byteCapacity: byteCapacity)
            s.published = max(s.published, revision)
            return Array(s.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield() }
    }

    /// Publishes `revision` with no entries a watcher could replay (a change too large to log, such as every
    /// trait of a large home marked unconfirmed at start): the retained entries go, and a watch resuming from
    /// before `revision` re-lists, which gives it the whole new state.
    func discontinue(at revision: UInt64) {
        let subscribers = state.withLock { s -> [AsyncStream<Void>.Continuation] in
            s.entries.removeAll()
            s.revisions.removeAll()
            s.bytes = 0
            s.oldestResumable = revision
            s.published = max(s.published, revision)
            return Array(s.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield() }
    }

    /// Entries after `cursor`: at most about `limit` (never splitting a revision); or, when more than
    /// `readAllAbove` are waiting, all of them, to be coalesced.
    func read(after cursor: UInt64, limit: Int, readAllAbove: Int) -> Read {
        state.withLock { s in
            if cursor < s.oldestResumable { return .evicted }
            let start = s.firstIndex(after: cursor)
            let backlog = s.entries.count - start
            guard backlog > 0 else { return .entries([], through: cursor, coalesce: false) }
            var end = s.entries.count
            let coalesce = backlog > readAllAbove
            if !coalesce, backlog > limit {
                end = start + limit
                while end < s.entries.count, s.revisions[end] == s.revisions[end - 1] { end += 1 }
            }
            let slice = Array(s.entries[start..<end])
            let through = end == s.entries.count ? s.published : slice[slice.count - 1].revision
            return .entries(slice, through: through, coalesce: coalesce)
        }
    }

    /// A doorbell for one watcher; ``unsubscribe(_:)`` it when the watcher ends.
    func subscribe() -> Subscription {
        let (rings, ring) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { s in
            defer { s.nextSubscriber += 1 }
            s.subscribers[s.nextSubscriber] = ring
            return s.nextSubscriber
        }
        return Subscription(id: id, rings: rings, ring: ring)
    }

    func unsubscribe(_ subscription: Subscription) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: subscription.id) }
        subscription.ring.finish()
    }
}

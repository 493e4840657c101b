import HearthProto
import Synchronization

/// The client's cache of the hub's home: the newest synced snapshot and the feeds that view it.
final class HomeStore: Sendable {
    private struct State {
        var snapshot = HomeSnapshot()
        /// Feeds that may care about any change.
        var feeds: [UInt64: @Sendable (HomeSnapshot) -> Void] = [:]
        /// Feeds that view one device (`device(id:)`, `types.subscribe`, `events`), by device id: a push
        /// wakes only those of the devices it changed or that raised events, not every feed of the home.
        var scoped: [String: [UInt64: @Sendable (HomeSnapshot) -> Void]] = [:]
        var ends: [UInt64: @Sendable (HomeError?) -> Void] = [:]
        var nextID: UInt64 = 0
        var end: HomeError??
        var syncWaiters: [UInt64: CheckedContinuation<HomeSnapshot, any Error>] = [:]
        /// Why the last attempt to watch failed (a TLS certificate that does not verify, say), for the
        /// sync timeout's message.
        var lastConnectionError: String?
    }

    private let state = Mutex(State())
    /// The snapshot's revision, readable without the lock: ``Home/revision`` is polled (a load test waits
    /// for a revision this way), and copying the snapshot out under the lock for it contended with every
    /// publish (6 % of a client applying 100,000 changes/s).
    private let revisionValue = Atomic<UInt64>(0)

    /// The snapshot now (possibly not yet synced).
    var snapshot: HomeSnapshot { state.withLock { $0.snapshot } }

    /// The revision of the snapshot now.
    var revision: UInt64 { revisionValue.load(ordering: .acquiring) }

    /// Replaces the snapshot; feeds get it when it is synced and something changed.
    func publish(_ snapshot: HomeSnapshot) {
        let (feeds, waiters) = state.withLock { s -> ([@Sendable (HomeSnapshot) -> Void], [CheckedContinuation<HomeSnapshot, any Error>]) in
            let first = snapshot.synced && !s.snapshot.synced
            s.snapshot = snapshot
            revisionValue.store(snapshot.revision, ordering: .releasing)
            guard snapshot.synced, first || !snapshot.delta.isEmpty else { return ([], []) }
            defer { s.syncWaiters = [:] }
            var feeds = Array(s.feeds.values)
            if first {
                for byID in s.scoped.values { feeds += byID.values }  // each has yet to see its first snapshot
            } else if !s.scoped.isEmpty {
                var ids = snapshot.delta.devices
                for event in snapshot.delta.events { ids.insert(event.deviceID) }
                for id in ids { if let byID = s.scoped[id] { feeds += byID.values } }
            }
            return (feeds, Array(s.syncWaiters.values))
        }
        for waiter in waiters { waiter.resume(returning: snapshot) }
        for feed in feeds { feed(snapshot) }
    }

    /// Registers a feed; it gets the current snapshot at once if synced.
    func attach<Output>(_ feed: Feed<Output>) {
        let (id, current, end) = state.withLock { s -> (UInt64, HomeSnapshot?, HomeError??) in
            s.nextID += 1
            if s.end == nil {
                if let device = feed.scope {
                    s.scoped[device, default: [:]][s.nextID] = { feed.push($0) }
                } else {
                    s.feeds[s.nextID] = { feed.push($0) }
                }
                s.ends[s.nextID] = { feed.finish($0) }
            }
            return (s.nextID, s.snapshot.synced ? s.snapshot : nil, s.end)
        }
        feed.setOnCancel { [weak self] in self?.detach(id, scope: feed.scope) }
        if let current { feed.push(current) }
        if case .some(let error) = end { feed.finish(error) }
    }

    private func detach(_ id: UInt64, scope: String?) {
        state.withLock { s in
            if let scope {
                s.scoped[scope]?[id] = nil
                if s.scoped[scope]?.isEmpty == true { s.scoped[scope] = nil }
            } else {
                s.feeds[id] = nil
            }
            s.ends[id] = nil
        }
    }

    /// Remembers why the watch stream could not be opened or was lost.
    func noteConnectionError(_ error: any Error) {
        state.withLock { $0.lastConnectionError = "\(error)" }
    }

    /// The first synced snapshot, waiting for it at most `timeout`.
    func synced(timeout: Duration) async throws -> HomeSnapshot {
        try await withThrowingTaskGroup(of: HomeSnapshot.self) { group in
            group.addTask { try await self.waitForSync() }
            group.addTask {
                try await Task.sleep(for: timeout)
                let cause = self.state.withLock { $0.lastConnectionError }.map { " (last error: \($0))" } ?? ""
                throw HomeError(.deadlineExceeded, "the hub did not send the home within \(timeout)\(cause)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private func waitForSync() async throws -> HomeSnapshot {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { s -> Result<HomeSnapshot, any Error>? in
                    if case .some(let end) = s.end { return .failure(end ?? HomeError(.cancelled, "the home is closed")) }
                    if s.snapshot.synced { return .success(s.snapshot) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.syncWaiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            state.withLock { $0.syncWaiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Drops the cached objects (keeping the revision): after ``Home/close()``, nothing may hold the home
    /// through a cached device's public value.
    func forget() {
        state.withLock { s in
            var empty = HomeSnapshot()
            (empty.revision, empty.epoch, empty.synced, empty.sequence) = (s.snapshot.revision, s.snapshot.epoch, s.snapshot.synced, s.snapshot.sequence)
            s.snapshot = empty
        }
    }

    /// Ends every feed: nil when the home was closed, an error when the hub refused it for good.
    func end(_ error: HomeError?) {
        let (ends, waiters) = state.withLock { s -> ([@Sendable (HomeError?) -> Void], [CheckedContinuation<HomeSnapshot, any Error>]) in
            guard s.end == nil else { return ([], []) }
            s.end = .some(error)
            defer {
                s.feeds = [:]
                s.scoped = [:]
                s.ends = [:]
                s.syncWaiters = [:]
            }
            return (Array(s.ends.values), Array(s.syncWaiters.values))
        }
        for waiter in waiters { waiter.resume(throwing: error ?? HomeError(.cancelled, "the home is closed")) }
        for end in ends { end(error) }
    }
}

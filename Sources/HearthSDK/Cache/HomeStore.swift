import Synchronization

/// The client's cache of the hub's home: the newest synced snapshot and the feeds that view it.
final class HomeStore: Sendable {
    private struct State {
        var snapshot = HomeSnapshot()
        var feeds: [UInt64: @Sendable (HomeSnapshot) -> Void] = [:]
        var ends: [UInt64: @Sendable (HomeError?) -> Void] = [:]
        var nextID: UInt64 = 0
        var end: HomeError??
        var syncWaiters: [UInt64: CheckedContinuation<HomeSnapshot, any Error>] = [:]
    }

    private let state = Mutex(State())

    /// The snapshot now (possibly not yet synced).
    var snapshot: HomeSnapshot { state.withLock { $0.snapshot } }

    /// Replaces the snapshot; feeds get it when it is synced and something changed.
    func publish(_ snapshot: HomeSnapshot) {
        let (feeds, waiters) = state.withLock { s -> ([@Sendable (HomeSnapshot) -> Void], [CheckedContinuation<HomeSnapshot, any Error>]) in
            let first = snapshot.synced && !s.snapshot.synced
            s.snapshot = snapshot
            guard snapshot.synced, first || !snapshot.delta.isEmpty else { return ([], []) }
            defer { s.syncWaiters = [:] }
            return (Array(s.feeds.values), Array(s.syncWaiters.values))
        }
        for waiter in waiters { waiter.resume(returning: snapshot) }
        for feed in feeds { feed(snapshot) }
    }

    /// Registers a feed; it gets the current snapshot at once if synced.
    func attach<Output>(_ feed: Feed<Output>) {
        let (id, current, end) = state.withLock { s -> (UInt64, HomeSnapshot?, HomeError??) in
            s.nextID += 1
            if s.end == nil {
                s.feeds[s.nextID] = { feed.push($0) }
                s.ends[s.nextID] = { feed.finish($0) }
            }
            return (s.nextID, s.snapshot.synced ? s.snapshot : nil, s.end)
        }
        feed.setOnCancel { [weak self] in self?.detach(id) }
        if let current { feed.push(current) }
        if case .some(let error) = end { feed.finish(error) }
    }

    private func detach(_ id: UInt64) {
        state.withLock { s in
            s.feeds[id] = nil
            s.ends[id] = nil
        }
    }

    /// The first synced snapshot, waiting for it at most `timeout`.
    func synced(timeout: Duration) async throws -> HomeSnapshot {
        try await withThrowingTaskGroup(of: HomeSnapshot.self) { group in
            group.addTask { try await self.waitForSync() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw HomeError(.deadlineExceeded, "the hub did not send the home within \(timeout)")
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

    /// Ends every feed: nil when the home was closed, an error when the hub refused it for good.
    func end(_ error: HomeError?) {
        let (ends, waiters) = state.withLock { s -> ([@Sendable (HomeError?) -> Void], [CheckedContinuation<HomeSnapshot, any Error>]) in
            guard s.end == nil else { return ([], []) }
            s.end = .some(error)
            defer {
                s.feeds = [:]
                s.ends = [:]
                s.syncWaiters = [:]
            }
            return (Array(s.ends.values), Array(s.syncWaiters.values))
        }
        for waiter in waiters { waiter.resume(throwing: error ?? HomeError(.cancelled, "the home is closed")) }
        for end in ends { end(error) }
    }
}

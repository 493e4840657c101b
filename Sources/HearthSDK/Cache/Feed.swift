import DequeModule
import Synchronization

/// What a feed makes of a snapshot.
enum FeedStep<Output: Sendable>: Sendable {
    /// Outputs to deliver (none: nothing of interest changed).
    case values([Output])
    /// The viewed object is gone (or never was): the feed finishes after what is ready.
    case finished
}

/// Renders a snapshot: `first` when nothing was delivered yet (the whole current state), else only what
/// `delta` says changed since the last rendering.
typealias FeedRender<Output: Sendable> =
    @Sendable (_ first: Bool, _ snapshot: HomeSnapshot, _ delta: HomeSnapshot.Delta) -> FeedStep<Output>

/// One subscriber's view of the cache: snapshots pushed by the store are coalesced here (the newest snapshot,
/// the union of what changed since the last delivery, every event) and rendered into outputs only when the
/// subscriber asks for the next one. A slow subscriber therefore costs the others nothing and never sees
/// stale data after fresh; nothing queues without bound.
final class Feed<Output: Sendable>: Sendable {
    typealias Render = FeedRender<Output>

    private struct State {
        var snapshot: HomeSnapshot?
        var delta = HomeSnapshot.Delta()
        var delivered = false
        var ready: Deque<Output> = []
        var waiter: CheckedContinuation<Output?, any Error>?
        var end: HomeError??  // .some(nil): finished; .some(error): failed
        var onCancel: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let render: Render
    /// Whether the render uses events; other feeds drop them at once, so an idle one holds none.
    private let keepsEvents: Bool
    /// Events waiting beyond this end the feed with `resourceExhausted`: never dropped in silence.
    private let eventBacklog: Int

    init(keepsEvents: Bool = false, eventBacklog: Int = 10_000, render: @escaping Render) {
        self.render = render
        self.keepsEvents = keepsEvents
        self.eventBacklog = eventBacklog
    }

    /// Called once registered with the store, to unregister on cancellation.
    func setOnCancel(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.onCancel = body } }

    /// A new snapshot from the store (synced ones only).
    func push(_ snapshot: HomeSnapshot) {
        var snapshot = snapshot
        if !keepsEvents { snapshot.delta.events = [] }
        let resume = state.withLock { s -> (CheckedContinuation<Output?, any Error>, Result<Output?, any Error>)? in
            guard s.end == nil else { return nil }
            if s.snapshot != nil { s.delta.formUnion(snapshot.delta) } else { s.delta = snapshot.delta }
            s.snapshot = snapshot
            if s.delta.events.count > eventBacklog {
                s.end = .some(HomeError(.resourceExhausted, "more than \(eventBacklog) events wait for this subscriber"))
                s.snapshot = nil
                s.delta = HomeSnapshot.Delta()
            }
            guard let waiter = s.waiter else { return nil }
            if let output = Self.take(&s, render) {
                s.waiter = nil
                return (waiter, .success(output))
            }
            guard case .some(let end) = s.end else { return nil }  // nothing of interest changed
            s.waiter = nil
            return (waiter, end.map { .failure($0) } ?? .success(nil))
        }
        if let (waiter, outcome) = resume { waiter.resume(with: outcome) }
    }

    /// Ends the feed after what is ready: nil finishes, an error fails.
    func finish(_ error: HomeError?) {
        let waiter = state.withLock { s -> CheckedContinuation<Output?, any Error>? in
            guard s.end == nil else { return nil }
            s.end = .some(error)
            guard s.ready.isEmpty else { return nil }
            defer { s.waiter = nil }
            return s.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// The next output, waiting for one; nil when finished.
    func next() async throws -> Output? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output?, any Error>) in
                let outcome = state.withLock { s -> Result<Output?, any Error>? in
                    if let output = Self.take(&s, render) { return .success(output) }
                    if case .some(let end) = s.end { return end.map { .failure($0) } ?? .success(nil) }
                    s.waiter = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops the feed: the store forgets it, a waiting `next()` ends with nil.
    func cancel() {
        let (waiter, onCancel) = state.withLock { s in
            s.end = .some(nil)
            s.ready.removeAll()
            defer { s.waiter = nil; s.onCancel = nil }
            return (s.waiter, s.onCancel)
        }
        waiter?.resume(returning: nil)
        onCancel?()
    }

    /// A ready output, rendering the pending snapshot if needed.
    private static func take(_ s: inout State, _ render: Render) -> Output? {
        while s.ready.isEmpty, s.end == nil, let snapshot = s.snapshot {
            let step = render(!s.delivered, snapshot, s.delta)
            s.snapshot = nil
            s.delta = HomeSnapshot.Delta()
            s.delivered = true
            switch step {
            case .values(let outputs): s.ready.append(contentsOf: outputs)
            case .finished: s.end = .some(nil)
            }
        }
        return s.ready.popFirst()
    }
}

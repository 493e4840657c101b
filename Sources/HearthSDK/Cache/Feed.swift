import DequeModule
import HearthProto
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

/// Whether what changed since the last rendering may concern a feed: a cheap test, run on every push, so that
/// a subscriber is woken (and renders) only for changes it may care about (a `device(id:)` feed for its
/// device), not for every update of the home.
typealias FeedInterest = @Sendable (_ snapshot: HomeSnapshot, _ delta: HomeSnapshot.Delta) -> Bool

/// One subscriber's view of the cache: snapshots pushed by the store are coalesced here (the newest snapshot,
/// the union of what changed since the last delivery, every event) and rendered into outputs only when the
/// subscriber asks for the next one, on the subscriber's own thread (its task, or its Combine subscription's
/// queue). A slow subscriber therefore costs the others nothing: the store's push only merges and wakes, so
/// the watch stream never waits for a rendering (a `batched()` rendering is a whole set). Nothing queues
/// without bound, and a subscriber never sees stale data after fresh.
final class Feed<Output: Sendable>: Sendable {
    typealias Render = FeedRender<Output>

    private struct State {
        var snapshot: HomeSnapshot?
        /// The newest snapshot sequence pushed: an older one arriving late (the store pushes a new feed's
        /// first snapshot outside its lock, so a publication can overtake it) is ignored.
        var newest: UInt64 = 0
        var delta = HomeSnapshot.Delta()
        var delivered = false
        var ready: Deque<Output> = []
        /// The subscriber waiting in ``next()`` for something to render or an end.
        var waiter: CheckedContinuation<Void, Never>?
        /// Or the callback a subscription left with ``poll(upTo:orWake:)``, called once when there is.
        var wake: (@Sendable () -> Void)?
        var end: HomeError??  // .some(nil): finished; .some(error): failed
        var onCancel: (@Sendable () -> Void)?
    }

    /// What ``next()`` does after looking at the state.
    private enum Step {
        case deliver(Result<Output?, any Error>)
        /// Several ready outputs at once (``poll(upTo:orWake:)``).
        case deliverMany([Output])
        case render(first: Bool, HomeSnapshot, HomeSnapshot.Delta)
        case wait
    }

    private let state = Mutex(State())
    private let render: Render
    private let interest: FeedInterest
    /// Whether the render uses events; other feeds drop them at once, so an idle one holds none.
    private let keepsEvents: Bool
    /// Events waiting beyond this end the feed with `resourceExhausted`: never dropped in silence.
    private let eventBacklog: Int
    /// The one device the feed views, if it views one: the store then pushes only updates that changed it,
    /// and the feed keeps only that id of what they changed.
    let scope: String?

    init(
        keepsEvents: Bool = false, eventBacklog: Int = 10_000, scope: String? = nil,
        interest: @escaping FeedInterest = { _, _ in true }, render: @escaping Render
    ) {
        self.scope = scope
        self.render = render
        self.interest = interest
        self.keepsEvents = keepsEvents
        self.eventBacklog = eventBacklog
    }

    /// Called once registered with the store, to unregister on cancellation.
    func setOnCancel(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.onCancel = body } }

    /// A new snapshot from the store (synced ones only): merged, and the waiting subscriber woken.
    func push(_ snapshot: HomeSnapshot) {
        var snapshot = snapshot
        if !keepsEvents { snapshot.delta.events = [] }
        if let scope {
            // Only this device's change matters here; a union of every changed id would grow without use,
            // and other devices' events would count against this feed's backlog.
            snapshot.delta.devices = snapshot.delta.devices.contains(scope) ? [scope] : []
            if keepsEvents { snapshot.delta.events.removeAll { $0.deviceID != scope } }
            snapshot.delta.structures = []
            snapshot.delta.rooms = []
        }
        let waiter = state.withLock { s -> Waiter? in
            guard s.end == nil, snapshot.sequence >= s.newest else { return nil }
            s.newest = snapshot.sequence
            if s.snapshot != nil { s.delta.formUnion(snapshot.delta) } else { s.delta = snapshot.delta }
            s.snapshot = snapshot
            if s.delta.events.count > eventBacklog {
                s.end = .some(HomeError(.resourceExhausted, "more than \(eventBacklog) events wait for this subscriber"))
                s.snapshot = nil
                s.delta = HomeSnapshot.Delta()
            }
            guard s.end != nil || isDue(&s) else { return nil }
            return Self.takeWaiter(&s)
        }
        waiter?.resume()
    }

    /// Whoever waits for this feed: a task in ``next()`` or a subscription's wake-up callback.
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>?
        var wake: (@Sendable () -> Void)?

        func resume() {
            continuation?.resume()
            wake?()
        }
    }

    private static func takeWaiter(_ s: inout State) -> Waiter? {
        guard s.waiter != nil || s.wake != nil else { return nil }
        defer { s.waiter = nil; s.wake = nil }
        return Waiter(continuation: s.waiter, wake: s.wake)
    }

    /// Whether the pending snapshot should be rendered: the first one always, later ones when they may
    /// concern this feed (otherwise they wait, merged with what comes next).
    private func isDue(_ s: inout State) -> Bool {
        guard let snapshot = s.snapshot else { return false }
        return !s.delivered || interest(snapshot, s.delta)
    }

    /// Whether the consumer has something to take now (an output, the end, or a snapshot to render): checked
    /// again under the lock before it waits, so that nothing pushed meanwhile is missed.
    private func hasWork(_ s: inout State) -> Bool { !s.ready.isEmpty || s.end != nil || isDue(&s) }

    /// Ends the feed after what is ready: nil finishes, an error fails.
    func finish(_ error: HomeError?) {
        let waiter = state.withLock { s -> Waiter? in
            guard s.end == nil else { return nil }
            s.end = .some(error)
            return Self.takeWaiter(&s)
        }
        waiter?.resume()
    }

    /// What ``poll(upTo:orWake:)`` finds without waiting.
    enum Poll {
        /// The outputs ready now, in order (at least one, at most the limit asked for).
        case values([Output])
        /// The feed ended: nil finished, an error failed.
        case end(HomeError?)
        /// Nothing is ready yet.
        case pending
    }

    /// The outputs ready now, up to `limit` of them (rendering a pending snapshot on the caller's thread),
    /// else `.pending`, after which `wake` is called once (on the thread that pushes or ends the feed) when
    /// there is something to take: how a Combine subscription delivers without a task of its own. One
    /// caller at a time, as for ``next()``.
    ///
    /// A `stream()` rendering queues one output per changed object; taking them one lock (and, this class
    /// being generic, a few runtime metadata lookups) apiece cost a fifth of a client's CPU.
    func poll(upTo limit: Int, orWake wake: @escaping @Sendable () -> Void) -> Poll {
        while true {
            let next = state.withLock { s -> Step in
                guard s.ready.count > 1, limit > 1 else { return step(&s) }
                let taken = Array(s.ready.prefix(limit))
                s.ready.removeFirst(taken.count)
                return .deliverMany(taken)
            }
            switch next {
            case .deliverMany(let outputs): return .values(outputs)
            case .deliver(.success(let output?)): return .values([output])
            case .deliver(.success(nil)): return .end(nil)
            case .deliver(.failure(let error)): return .end(HomeError.from(error))
            case .render(let first, let snapshot, let delta): renderPending(first: first, snapshot, delta)
            case .wait:
                let armed = state.withLock { s -> Bool in
                    if hasWork(&s) { return false }
                    s.wake = wake
                    return true
                }
                if armed { return .pending }
            }
        }
    }

    /// The next output, waiting for one; nil when finished. One caller at a time (an iterator), which
    /// renders pending snapshots itself, outside the lock.
    func next() async throws -> Output? {
        try await withTaskCancellationHandler {
            while true {
                switch state.withLock({ step(&$0) }) {
                case .deliver(let outcome): return try outcome.get()
                case .deliverMany: preconditionFailure("step(_:) delivers one output at a time")
                case .render(let first, let snapshot, let delta): renderPending(first: first, snapshot, delta)
                case .wait:
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let ready = state.withLock { s -> Bool in
                            if hasWork(&s) { return true }
                            s.waiter = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Renders a snapshot taken by ``step(_:)`` outside the lock and queues what it makes.
    private func renderPending(first: Bool, _ snapshot: HomeSnapshot, _ delta: HomeSnapshot.Delta) {
        let step = render(first, snapshot, delta)
        state.withLock { s in
            guard s.end == nil else { return }  // ended or cancelled meanwhile
            switch step {
            case .values(let outputs): s.ready.append(contentsOf: outputs)
            case .finished: s.end = .some(nil)
            }
        }
    }

    /// Stops the feed: the store forgets it, a waiting `next()` ends with nil.
    func cancel() {
        let (waiter, onCancel) = state.withLock { s in
            s.end = .some(nil)
            s.ready.removeAll()
            s.snapshot = nil
            let waiter = Self.takeWaiter(&s)
            defer { s.onCancel = nil }
            return (waiter, s.onCancel)
        }
        waiter?.resume()
        onCancel?()
    }

    /// What is ready comes first, then an end, then a pending snapshot to render.
    private func step(_ s: inout State) -> Step {
        if let output = s.ready.popFirst() { return .deliver(.success(output)) }
        if case .some(let end) = s.end { return .deliver(end.map { .failure($0) } ?? .success(nil)) }
        guard isDue(&s), let snapshot = s.snapshot else { return .wait }
        let first = !s.delivered
        let delta = s.delta
        s.snapshot = nil
        s.delta = HomeSnapshot.Delta()
        s.delivered = true
        return .render(first: first, snapshot, delta)
    }
}

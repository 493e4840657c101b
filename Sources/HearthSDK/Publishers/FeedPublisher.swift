import Dispatch
public import OpenCombineShim
import Synchronization

/// A publisher that views the home's cache through a ``Feed``: each subscription has its own feed, so a slow
/// subscriber gets coalesced, newest values and holds up no one.
struct FeedPublisher<Output: Sendable>: Publisher {
    typealias Failure = HomeError

    let home: Home
    let keepsEvents: Bool
    /// Makes each subscription's renderer: a renderer may keep state (the last set emitted), which one
    /// subscription must not share with another of the same publisher.
    let render: @Sendable () -> FeedRender<Output>

    let interest: FeedInterest
    /// The one device viewed, if one (see ``Feed/scope``).
    let scope: String?

    init(
        home: Home, keepsEvents: Bool = false, scope: String? = nil, interest: @escaping FeedInterest = { _, _ in true },
        render: @autoclosure @escaping @Sendable () -> FeedRender<Output>
    ) {
        self.home = home
        self.keepsEvents = keepsEvents
        self.scope = scope
        self.interest = interest
        self.render = render
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == HomeError {
        let feed = Feed(
            keepsEvents: keepsEvents, eventBacklog: home.configuration.eventBacklog, scope: scope, interest: interest,
            render: render())
        // Attached first: a synced cache pushes its snapshot now, so that the subscriber's first request
        // can deliver the current value before `sink` returns (see FeedSubscription.request).
        home.store.attach(feed)
        subscriber.receive(subscription: FeedSubscription(feed: feed, subscriber: subscriber))
    }
}

/// Delivers a feed's outputs to one Combine subscriber as it asks for them.
///
/// What the synced cache already holds is delivered during the subscriber's first request, on the caller's
/// thread, before `sink` returns (as a `CurrentValueSubject` does): a subscription whose `AnyCancellable` is
/// dropped at once still gets its current value. Later values arrive on a serial dispatch queue of the
/// subscription's own, which the pump task awaits: a sink that blocks (a slow consumer, a semaphore) holds a
/// dispatch thread, never one of Swift's few cooperative threads.
///
/// `@unchecked Sendable`: the subscriber (not `Sendable` itself) is called either inline by the first
/// `request` or on `queue` by the single pump task, and `state.pumping` makes sure only one of them runs at
/// a time, as Combine requires serialized calls; the rest of the state is behind the mutex.
final class FeedSubscription<S: Subscriber>: Subscription, @unchecked Sendable
where S.Input: Sendable, S.Failure == HomeError {
    private struct State {
        var demand = Subscribers.Demand.none
        var pumping = false
        var pump: Task<Void, Never>?
        var cancelled = false
        /// Whether the first request (which delivers what is ready inline) has come.
        var requested = false
        /// Set once the completion was delivered inline: no pump may start after it.
        var completed = false
    }

    private let feed: Feed<S.Input>
    private let subscriber: S
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "hearth.sdk.subscriber")

    init(feed: Feed<S.Input>, subscriber: S) {
        self.feed = feed
        self.subscriber = subscriber
    }

    func request(_ demand: Subscribers.Demand) {
        let (start, first) = state.withLock { s -> (Bool, Bool) in
            s.demand += demand
            guard !s.pumping, !s.cancelled, !s.completed, s.demand > 0 else { return (false, false) }
            s.pumping = true
            defer { s.requested = true }
            return (true, !s.requested)
        }
        guard start else { return }
        if first, !deliverReady() { return }
        // One delivery task while there is demand: Combine gives a publisher no thread of its own.
        let task = Task { await self.pump() }
        state.withLock { $0.pump = task }
    }

    /// Delivers what the feed holds now on the caller's thread while there is demand; false when nothing is
    /// left to pump (demand used up, cancelled or completed), with `pumping` cleared accordingly.
    private func deliverReady() -> Bool {
        while true {
            switch feed.poll() {
            case .pending:
                return true
            case .end(let error):
                let cancelled = state.withLock { s -> Bool in
                    s.completed = true
                    return s.cancelled
                }
                if !cancelled { subscriber.receive(completion: error.map { .failure($0) } ?? .finished) }
                return false
            case .value(let value):
                if !account(delivered: 1, more: subscriber.receive(value)) { return false }
            }
        }
    }

    /// Counts `delivered` values against the demand and adds what the subscriber asked for meanwhile;
    /// false (and `pumping` cleared) when there is no demand left or the subscription was cancelled.
    private func account(delivered: Int, more: Subscribers.Demand) -> Bool {
        state.withLock { s in
            s.demand -= delivered
            s.demand += more
            if s.demand == 0 || s.cancelled { s.pumping = false }
            return s.pumping
        }
    }

    /// Values delivered in one hop to the subscriber's queue at most.
    private static var batch: Int { 256 }

    private func pump() async {
        while true {
            do {
                guard let value = try await feed.next() else {
                    if !state.withLock({ $0.cancelled }) { await onQueue { self.subscriber.receive(completion: .finished) } }
                    return
                }
                // What was rendered beside it goes in the same hop to the subscriber's queue (a `stream()` of a
                // busy home renders many values at once), never more than the demand allows; nothing new is
                // rendered for the batch.
                var values = [value]
                let budget = state.withLock { s in s.demand == .unlimited ? Self.batch : min(s.demand.max ?? 1, Self.batch) }
                while values.count < budget, let next = feed.takeReady() { values.append(next) }
                let batch = values
                let (delivered, more) = await onQueue { () -> (Int, Subscribers.Demand) in
                    var more = Subscribers.Demand.none
                    var delivered = 0
                    for value in batch {
                        guard !self.state.withLock({ $0.cancelled }) else { break }
                        more += self.subscriber.receive(value)
                        delivered += 1
                    }
                    return (delivered, more)
                }
                if !account(delivered: delivered, more: more) { return }
            } catch {
                let failure = HomeError.from(error)
                if !state.withLock({ $0.cancelled }) { await onQueue { self.subscriber.receive(completion: .failure(failure)) } }
                return
            }
        }
    }

    /// Runs `body` on the subscriber's queue and waits for it without holding a cooperative thread.
    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    func cancel() {
        let task = state.withLock { s in
            s.cancelled = true
            return s.pump
        }
        feed.cancel()
        task?.cancel()
    }
}

/// The asynchronous-sequence twin of a Home publisher: `for try await devices in home.devices().batches`.
///
/// Each iterator has its own view of the cache, coalesced like a publisher's: iterate slowly and you get the
/// newest values, never an unbounded backlog.
public struct HomeUpdates<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = any Error
    let home: Home
    let keepsEvents: Bool
    /// Makes each iterator's renderer (see ``FeedPublisher``).
    let render: @Sendable () -> FeedRender<Element>

    let interest: FeedInterest
    /// The one device viewed, if one (see ``Feed/scope``).
    let scope: String?

    init(
        home: Home, keepsEvents: Bool = false, scope: String? = nil, interest: @escaping FeedInterest = { _, _ in true },
        render: @autoclosure @escaping @Sendable () -> FeedRender<Element>
    ) {
        self.home = home
        self.keepsEvents = keepsEvents
        self.scope = scope
        self.interest = interest
        self.render = render
    }

    public func makeAsyncIterator() -> Iterator {
        let feed = Feed(
            keepsEvents: keepsEvents, eventBacklog: home.configuration.eventBacklog, scope: scope, interest: interest,
            render: render())
        home.store.attach(feed)
        return Iterator(handle: FeedHandle(feed: feed))
    }

    /// Iterates the feed; ending the iteration (dropping the iterator) stops it.
    public struct Iterator: AsyncIteratorProtocol {
        let handle: FeedHandle<Element>

        public mutating func next() async throws -> Element? { try await handle.feed.next() }
    }
}

/// Cancels its feed when the last iterator copy is gone.
final class FeedHandle<Element: Sendable>: Sendable {
    let feed: Feed<Element>
    init(feed: Feed<Element>) { self.feed = feed }
    deinit { feed.cancel() }
}

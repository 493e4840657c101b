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
/// dropped at once still gets its current value. Later values are rendered and delivered on a serial
/// dispatch queue of the subscription's own, woken by the feed when something is ready: a sink that blocks (a
/// slow consumer, a semaphore) holds a dispatch thread, never one of Swift's few cooperative threads, and a
/// change reaches a subscriber in one thread wake-up. (A pump task once stood between the feed and the
/// queue: three wake-ups per delivery, the task's, the queue's and the task's again.)
///
/// `@unchecked Sendable`: the subscriber (not `Sendable` itself) is only called by ``drain()``, which
/// `state.draining` lets one caller run at a time (the first request inline, later ones on `queue`), as
/// Combine requires serialized calls; the rest of the state is behind the mutex.
final class FeedSubscription<S: Subscriber>: Subscription, Drainable, @unchecked Sendable
where S.Input: Sendable, S.Failure == HomeError {
    private struct State {
        var demand = Subscribers.Demand.none
        /// A drain runs (or is queued); only it calls the subscriber.
        var draining = false
        /// The feed woke the subscription while a drain ran: that drain polls once more before it stops.
        var woken = false
        var cancelled = false
        /// Whether the first request (which delivers what is ready inline) has come.
        var requested = false
        /// Set once the completion was delivered: nothing is delivered after it.
        var completed = false
    }

    private let feed: Feed<S.Input>
    private let subscriber: S
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "hearth.sdk.subscriber")
    /// Outputs taken from the feed at once, at most.
    private static var batchLimit: Int { 256 }

    init(feed: Feed<S.Input>, subscriber: S) {
        self.feed = feed
        self.subscriber = subscriber
    }

    func request(_ demand: Subscribers.Demand) {
        let (start, first) = state.withLock { s -> (Bool, Bool) in
            s.demand += demand
            guard !s.draining, !s.cancelled, !s.completed, s.demand > 0 else { return (false, false) }
            s.draining = true
            defer { s.requested = true }
            return (true, !s.requested)
        }
        guard start else { return }
        if first { drain() } else { drainOnQueue() }
    }

    /// Runs ``drain()`` on the queue; the closure holds the subscription as a ``Drainable``, not as its
    /// generic type, whose metatype is not `Sendable`.
    private func drainOnQueue() {
        let me: any Drainable = self
        queue.async { me.drain() }
    }

    /// The feed has something: drain it on the queue, unless a drain runs (it is told to look again) or the
    /// subscriber has no demand (its next request drains).
    func wake() {
        let start = state.withLock { s -> Bool in
            guard !s.cancelled, !s.completed else { return false }
            if s.draining {
                s.woken = true
                return false
            }
            guard s.demand > 0 else { return false }
            s.draining = true
            return true
        }
        if start { drainOnQueue() }
    }

    /// Delivers what the feed holds while there is demand, rendering pending snapshots on this thread; stops
    /// (clearing `draining`) when the demand is used up, the feed has nothing (it wakes the subscription
    /// later), or the subscription ended.
    func drain() {
        let me: any Drainable = self
        let wakeUp: @Sendable () -> Void = { me.wake() }
        while true {
            // At most the demand: it only drops by one per delivered value, so none taken is left over.
            let limit = state.withLock { s in s.demand.max.map { min($0, Self.batchLimit) } ?? Self.batchLimit }
            switch feed.poll(upTo: max(limit, 1), orWake: wakeUp) {
            case .pending:
                let stop = state.withLock { s -> Bool in
                    if s.woken {
                        s.woken = false
                        return false
                    }
                    s.draining = false
                    return true
                }
                if stop { return }
            case .end(let error):
                let cancelled = state.withLock { s -> Bool in
                    s.completed = true
                    s.draining = false
                    return s.cancelled
                }
                if !cancelled { subscriber.receive(completion: error.map { .failure($0) } ?? .finished) }
                feed.cancel()  // the store forgets the ended feed now, not when the home closes
                return
            case .values(let values):
                for value in values {
                    guard !state.withLock({ $0.cancelled }) else { return }
                    let more = subscriber.receive(value)
                    let go = state.withLock { s -> Bool in
                        s.demand -= 1
                        s.demand += more
                        if s.demand == 0 || s.cancelled { s.draining = false }
                        return s.draining
                    }
                    if !go { return }
                }
            }
        }
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
        feed.cancel()
    }
}

/// What a feed's wake-up and the subscription's queue call, without naming the subscriber's type.
protocol Drainable: AnyObject, Sendable {
    func wake()
    func drain()
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

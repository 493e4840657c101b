#if !canImport(Combine)
import DequeModule
import OpenCombineShim
import Synchronization

/// The subscription behind ``Publishers/CombineLatest`` and ``Publishers/Merge`` and their kin (OpenCombine
/// 0.14 has neither): N upstream subscriptions feeding one downstream subscriber.
///
/// - Merge mode forwards every upstream value. Latest mode keeps each upstream's newest value and, once every
///   upstream has sent one, emits their combination on each new value.
/// - Demand: a downstream request of `n` is passed to every upstream (as Apple's Combine does). In merge mode
///   the values beyond the downstream's demand wait in a queue that the demand it asked for bounds; in latest
///   mode only the newest combination waits.
/// - Ends: the first upstream failure fails at once and cancels the rest; otherwise it finishes when every
///   upstream has finished (latest mode also finishes as soon as an upstream finishes without ever sending a
///   value, since no combination can come then).
/// - Serial delivery: upstreams may call from any thread; the one that finds no delivery under way delivers
///   everything pending (including what arrives meanwhile, reentrant calls included), so the downstream is
///   never called concurrently, as Combine requires.
final class Combinator<Output, Failure: Error>: Subscription {
    enum Mode {
        case merge
        /// Makes the output from every upstream's newest value, in upstream order.
        case latest(([Any]) -> Output)
    }

    /// `@unchecked Sendable`: Combine's contract moves values and subscriptions between the upstreams'
    /// threads and the downstream's, and neither Combine nor OpenCombine marks them `Sendable`; here they
    /// are only ever touched while the mutex is held, and handed out of it only to be delivered once.
    private struct State: @unchecked Sendable {
        var upstreams: [(any Subscription)?]
        var latest: [Any?]
        var finished: [Bool]
        /// Demand asked of every upstream so far, for an upstream whose subscription arrives later.
        var requested = Subscribers.Demand.none
        var demand = Subscribers.Demand.none
        var queue: Deque<Output> = []
        var end: Subscribers.Completion<Failure>?
        var delivering = false
        /// Set once the downstream cancelled or got its completion: nothing more reaches it.
        var done = false
    }

    /// `@unchecked Sendable`: taken out of the state under the mutex, as `State` (see there).
    private enum Action: @unchecked Sendable {
        case value(Output)
        case completion(Subscribers.Completion<Failure>)
    }

    private let downstream: AnySubscriber<Output, Failure>
    private let mode: Mode
    private let state: Mutex<State>

    init(count: Int, mode: Mode, downstream: AnySubscriber<Output, Failure>) {
        self.downstream = downstream
        self.mode = mode
        state = Mutex(State(
            upstreams: Array(repeating: nil, count: count), latest: Array(repeating: nil, count: count),
            finished: Array(repeating: false, count: count)))
    }

    /// Subscribes to the upstreams after the downstream has its subscription (an upstream may deliver at
    /// once, during `subscribe`).
    func start(_ subscribes: [(Combinator) -> Void]) {
        downstream.receive(subscription: self)
        for subscribe in subscribes { subscribe(self) }
    }

    /// A subscriber for upstream `index`, to pass to that publisher's `subscribe`.
    func side<Input>(_ index: Int, _ input: Input.Type) -> AnySubscriber<Input, Failure> {
        AnySubscriber(
            receiveSubscription: { [self] in upstreamSubscribed(index, $0) },
            receiveValue: { [self] in upstreamValue(index, $0) },
            receiveCompletion: { [self] in upstreamEnded(index, $0) })
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        let upstreams = state.withLock { s -> [any Subscription] in
            guard !s.done else { return [] }
            s.demand += demand
            s.requested += demand
            return s.upstreams.compactMap { $0 }
        }
        for upstream in upstreams { upstream.request(demand) }
        drain()
    }

    func cancel() {
        let upstreams = state.withLock { s -> [any Subscription] in
            s.done = true
            s.queue.removeAll()
            defer { s.upstreams = s.upstreams.map { _ in nil } }
            return s.upstreams.compactMap { $0 }
        }
        for upstream in upstreams { upstream.cancel() }
    }

    private func upstreamSubscribed(_ index: Int, _ subscription: any Subscription) {
        let demand = state.withLock { s -> Subscribers.Demand? in
            guard !s.done, s.end == nil, s.upstreams[index] == nil else { return nil }
            s.upstreams[index] = subscription
            return s.requested
        }
        guard let demand else { return subscription.cancel() }
        if demand > 0 { subscription.request(demand) }
    }

    private func upstreamValue(_ index: Int, _ value: Any) -> Subscribers.Demand {
        state.withLock { s in
            guard !s.done, s.end == nil else { return }
            switch mode {
            case .merge:
                s.queue.append(value as! Output)  // merge mode: every upstream's Output is Output
            case .latest(let combine):
                s.latest[index] = value
                let values = s.latest.compactMap { $0 }
                guard values.count == s.latest.count else { return }
                s.queue = [combine(values)]  // only the newest combination waits
            }
        }
        drain()
        return .none  // more is asked through request(_:), for every upstream alike
    }

    private func upstreamEnded(_ index: Int, _ completion: Subscribers.Completion<Failure>) {
        let cancel = state.withLock { s -> [any Subscription] in
            guard !s.done, s.end == nil else { return [] }
            s.finished[index] = true
            s.upstreams[index] = nil
            switch completion {
            case .failure:
                s.end = completion
                s.queue.removeAll()
            case .finished:
                let hopeless = if case .latest = mode { s.latest[index] == nil } else { false }
                guard hopeless || !s.finished.contains(false) else { return [] }
                s.end = .finished
                if hopeless { s.queue.removeAll() }
            }
            defer { s.upstreams = s.upstreams.map { _ in nil } }
            return s.upstreams.compactMap { $0 }
        }
        for upstream in cancel { upstream.cancel() }
        drain()
    }

    /// Delivers what may be delivered, unless another call is already doing so (it will see what was added).
    private func drain() {
        while let action = state.withLock({ Self.next(&$0) }) {
            switch action {
            case .value(let value):
                let more = downstream.receive(value)
                state.withLock { s in
                    s.delivering = false
                    if more > 0, !s.done { s.demand += more }
                }
                // Demand added by the return value is asked of the upstreams like any request.
                if more > 0 { forward(more) }
            case .completion(let completion):
                downstream.receive(completion: completion)
                state.withLock { $0.delivering = false }
            }
        }
    }

    /// Asks every upstream for demand the downstream returned from `receive(_:)`.
    private func forward(_ demand: Subscribers.Demand) {
        let upstreams = state.withLock { s -> [any Subscription] in
            guard !s.done else { return [] }
            s.requested += demand
            return s.upstreams.compactMap { $0 }
        }
        for upstream in upstreams { upstream.request(demand) }
    }

    private static func next(_ s: inout State) -> Action? {
        guard !s.delivering, !s.done else { return nil }
        if s.demand > 0, let value = s.queue.popFirst() {
            s.demand -= 1
            s.delivering = true
            return .value(value)
        }
        if s.queue.isEmpty, let end = s.end {
            s.done = true
            s.delivering = true
            return .completion(end)
        }
        return nil
    }
}
#endif

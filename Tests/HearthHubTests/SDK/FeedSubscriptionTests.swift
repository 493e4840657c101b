import Dispatch
import Foundation
import OpenCombineShim
import Synchronization
import Testing

@testable import HearthSDK

/// The Combine subscription over a feed, without a hub: what it delivers, in which order, and that it calls
/// its subscriber one call at a time while another thread pushes.
@Suite struct FeedSubscriptionTests {
    /// Records what it receives; asks for `perValue` more with each value.
    final class Recorder: Subscriber, Sendable {
        typealias Input = UInt64
        typealias Failure = HomeError

        struct State {
            var values: [UInt64] = []
            var completions = 0
            var inside = false
            var overlapping = 0
        }
        let state = Mutex(State())
        /// Set once, by `receive(subscription:)` inside `subscribe`, before the test reads it.
        nonisolated(unsafe) var subscription: (any Subscription)?
        let initial: Subscribers.Demand
        let perValue: Subscribers.Demand

        init(initial: Subscribers.Demand, perValue: Subscribers.Demand) {
            self.initial = initial
            self.perValue = perValue
        }

        func receive(subscription: any Subscription) {
            self.subscription = subscription
            subscription.request(initial)
        }

        func receive(_ input: UInt64) -> Subscribers.Demand {
            enter()
            // Long enough for pushes to pile up behind it, so that they are coalesced.
            if input % 97 == 0 { usleep(200) }
            state.withLock { $0.values.append(input) }
            leave()
            return perValue
        }

        func receive(completion: Subscribers.Completion<HomeError>) {
            enter()
            state.withLock { $0.completions += 1 }
            leave()
        }

        private func enter() {
            state.withLock { s in
                if s.inside { s.overlapping += 1 }
                s.inside = true
            }
        }

        private func leave() { state.withLock { $0.inside = false } }

        var values: [UInt64] { state.withLock { $0.values } }
        var completions: Int { state.withLock { $0.completions } }
    }

    private static func feed() -> Feed<UInt64> {
        Feed { _, snapshot, _ in .values([snapshot.revision]) }
    }

    private static func snapshot(_ revision: UInt64) -> HomeSnapshot {
        var snapshot = HomeSnapshot()
        snapshot.revision = revision
        snapshot.synced = true
        snapshot.delta.devices = ["d"]
        return snapshot
    }

    /// Subscribes a recorder to a feed the way ``FeedPublisher`` does, without a home.
    private static func subscribe(_ feed: Feed<UInt64>, _ recorder: Recorder) {
        recorder.receive(subscription: FeedSubscription(feed: feed, subscriber: recorder))
    }

    /// Waits (at most 10 s) until `done` holds.
    private static func eventually(_ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
    }

    @Test("each pusher's values arrive in order, one call at a time, the newest last, and the completion once")
    func orderedAndSerialized() async throws {
        for (initial, perValue) in [(Subscribers.Demand.unlimited, Subscribers.Demand.none), (.max(1), .max(1))] {
            let feed = Self.feed()
            let recorder = Recorder(initial: initial, perValue: perValue)
            feed.push(Self.snapshot(1))
            Self.subscribe(feed, recorder)
            // The synced value is delivered inline, by the first request.
            #expect(recorder.values == [1])
            let finished = Atomic(0)
            for k in 0..<2 {
                Thread {
                    for revision in stride(from: UInt64(2 + k), through: 20_000, by: 2) { feed.push(Self.snapshot(revision)) }
                    finished.add(1, ordering: .sequentiallyConsistent)
                }.start()
            }
            try await Self.eventually { finished.load(ordering: .sequentiallyConsistent) == 2 }
            #expect(finished.load(ordering: .sequentiallyConsistent) == 2)
            // The two pushers interleave; a last push alone says what "newest" is.
            feed.push(Self.snapshot(20_001))
            try await Self.eventually { recorder.values.last == 20_001 }
            feed.finish(nil)
            try await Self.eventually { recorder.completions == 1 }

            let values = recorder.values
            #expect(values.last == 20_001)
            #expect(recorder.completions == 1)
            #expect(recorder.state.withLock { $0.overlapping } == 0)
            // Each pusher's revisions arrive in the order it pushed them (never older after newer); nothing
            // repeats.
            for parity in [UInt64(0), 1] {
                let mine = values.filter { $0 % 2 == parity }
                #expect(zip(mine, mine.dropFirst()).allSatisfy { $0 < $1 })
            }
        }
    }

    @Test("without demand nothing is delivered; a later request gets the newest value")
    func demandHoldsDelivery() async throws {
        let feed = Self.feed()
        let recorder = Recorder(initial: .max(1), perValue: .none)
        feed.push(Self.snapshot(1))
        Self.subscribe(feed, recorder)
        #expect(recorder.values == [1])
        for revision in 2...50 { feed.push(Self.snapshot(UInt64(revision))) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(recorder.values == [1])
        recorder.subscription?.request(.max(1))
        try await Self.eventually { recorder.values.count == 2 }
        #expect(recorder.values == [1, 50])
    }

    @Test("after cancel nothing more is delivered, and no completion")
    func cancelStops() async throws {
        let feed = Self.feed()
        let recorder = Recorder(initial: .unlimited, perValue: .none)
        feed.push(Self.snapshot(1))
        Self.subscribe(feed, recorder)
        recorder.subscription?.cancel()
        for revision in 2...50 { feed.push(Self.snapshot(UInt64(revision))) }
        feed.finish(nil)
        try await Task.sleep(for: .milliseconds(50))
        #expect(recorder.values == [1])
        #expect(recorder.completions == 0)
    }
}

import Dispatch
import HearthSDK
import OpenCombineShim
import Synchronization
import Testing

/// Collects what a plain Combine subscriber receives, asking for `initial` values and then `more` per value.
final class DemandRecorder<Input: Sendable, Failure: Error>: Subscriber, Sendable {
    /// `@unchecked Sendable`: the subscription (a Combine type, not `Sendable`) is only stored and read
    /// under the mutex; requests on it may come from any thread, as Combine allows.
    struct State: @unchecked Sendable {
        var values: [Input] = []
        var completion: Subscribers.Completion<Failure>?
        var subscription: (any Subscription)?
    }
    let state = Mutex<State>(State())
    let initial: Subscribers.Demand
    let more: Subscribers.Demand

    init(initial: Subscribers.Demand = .unlimited, more: Subscribers.Demand = .none) {
        self.initial = initial
        self.more = more
    }

    func receive(subscription: any Subscription) {
        state.withLock { $0.subscription = subscription }
        subscription.request(initial)
    }
    func receive(_ input: Input) -> Subscribers.Demand {
        state.withLock { $0.values.append(input) }
        return more
    }
    func receive(completion: Subscribers.Completion<Failure>) { state.withLock { $0.completion = completion } }
    func request(_ demand: Subscribers.Demand) { state.withLock { $0.subscription }?.request(demand) }

    var values: [Input] { state.withLock { $0.values } }
    var completion: Subscribers.Completion<Failure>? { state.withLock { $0.completion } }
}

struct Boom: Error, Equatable {}

@Suite("HearthSDK's Combine operators on Linux: combineLatest, merge, value-only sink")
struct CombineOperatorTests {
    @Test("combineLatest waits for a value from each, then emits on every value with the newest of the others")
    func combineLatestTwo() {
        let a = PassthroughSubject<Int, Boom>()
        let b = PassthroughSubject<String, Boom>()
        let recorder = DemandRecorder<(Int, String), Boom>()
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        a.send(2)
        #expect(recorder.values.isEmpty, "nothing until both have sent")
        b.send("x")
        a.send(3)
        b.send("y")
        #expect(recorder.values.map { "\($0.0)\($0.1)" } == ["2x", "3x", "3y"])
        a.send(completion: .finished)
        #expect(recorder.completion == nil, "one finished upstream is not the end")
        b.send("z")
        #expect(recorder.values.last.map { "\($0.0)\($0.1)" } == "3z")
        b.send(completion: .finished)
        #expect(recorder.completion.map { if case .finished = $0 { true } else { false } } == true)
    }

    @Test("combineLatest of three and four, with a transform; the first failure fails it and cancels the rest")
    func combineLatestMoreAndFailure() {
        let a = PassthroughSubject<Int, Boom>()
        let b = PassthroughSubject<Int, Boom>()
        let c = PassthroughSubject<Int, Boom>()
        let d = PassthroughSubject<Int, Boom>()
        let sums = DemandRecorder<Int, Boom>()
        a.combineLatest(b, c, d) { $0 + $1 + $2 + $3 }.subscribe(sums)
        let triples = DemandRecorder<(Int, Int, Int), Boom>()
        a.combineLatest(b, c).subscribe(triples)
        a.send(1)
        b.send(10)
        c.send(100)
        d.send(1000)
        #expect(sums.values == [1111])
        #expect(triples.values.count == 1)
        b.send(completion: .failure(Boom()))
        a.send(2)
        #expect(sums.values == [1111], "nothing after the failure")
        #expect(sums.completion.map { if case .failure(Boom()) = $0 { true } else { false } } == true)
    }

    @Test("combineLatest finishes at once when an upstream finishes without ever sending")
    func combineLatestHopeless() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let recorder = DemandRecorder<(Int, Int), Never>()
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        b.send(completion: .finished)
        #expect(recorder.completion != nil)
        #expect(recorder.values.isEmpty)
    }

    @Test("combineLatest respects demand: one value per request, the newest combination waiting")
    func combineLatestDemand() {
        let a = CurrentValueSubject<Int, Never>(0)
        let b = CurrentValueSubject<Int, Never>(0)
        let recorder = DemandRecorder<(Int, Int), Never>(initial: .max(1))
        a.combineLatest(b).subscribe(recorder)
        #expect(recorder.values.map { $0.0 + $0.1 } == [0])
        a.send(1)
        b.send(5)
        #expect(recorder.values.count == 1, "no demand, no value")
        // The request reaches both upstreams: a's 1 makes (1, 0), delivered at once; b's 5 makes (1, 5), which
        // waits for the next request.
        recorder.request(.max(1))
        #expect(recorder.values.map { $0.0 * 10 + $0.1 } == [0, 10])
        a.send(2)
        recorder.request(.max(1))
        #expect(recorder.values.map { $0.0 * 10 + $0.1 } == [0, 10, 25], "only the newest combination waited")
    }

    @Test("merge forwards every value of each, in order of arrival; it finishes when all have finished")
    func mergeValues() {
        let a = PassthroughSubject<Int, Boom>()
        let b = PassthroughSubject<Int, Boom>()
        let c = PassthroughSubject<Int, Boom>()
        let recorder = DemandRecorder<Int, Boom>()
        a.merge(with: b, c).subscribe(recorder)
        a.send(1)
        b.send(2)
        c.send(3)
        a.send(4)
        a.send(completion: .finished)
        b.send(completion: .finished)
        b.send(5)
        #expect(recorder.completion == nil)
        c.send(completion: .finished)
        #expect(recorder.values == [1, 2, 3, 4])
        #expect(recorder.completion != nil)
    }

    @Test("merge with limited demand queues the rest and delivers it on request; MergeMany of none finishes at once")
    func mergeDemand() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let recorder = DemandRecorder<Int, Never>(initial: .max(2))
        Publishers.MergeMany([a, b]).subscribe(recorder)
        a.send(1)
        b.send(2)
        a.send(3)  // a's second of the 2 it was asked for: beyond the subscriber's demand, so it waits
        #expect(recorder.values == [1, 2])
        recorder.request(.max(1))
        #expect(recorder.values == [1, 2, 3])

        let none = DemandRecorder<Int, Never>()
        Publishers.MergeMany<PassthroughSubject<Int, Never>>([]).subscribe(none)
        #expect(none.completion != nil && none.values.isEmpty)
    }

    /// Counts overlapping calls into the subscriber.
    final class Overlap: Sendable {
        let inside = Atomic(0)
        let overlapped = Atomic(false)
    }

    /// `@unchecked Sendable`: OpenCombine's `PassthroughSubject` locks around its state, so `send` may be
    /// called from any thread (Combine's rule for subjects); the array itself is never mutated.
    struct Subjects: @unchecked Sendable {
        let all = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
    }

    @Test("values sent from many threads at once reach the subscriber serially and all of them")
    func concurrentUpstreams() {
        let subjects = Subjects()
        let recorder = DemandRecorder<Int, Never>()
        let overlap = Overlap()
        subjects.all[0].merge(with: subjects.all[1], subjects.all[2], subjects.all[3])
            .handleEvents(receiveOutput: { _ in
                if overlap.inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                    overlap.overlapped.store(true, ordering: .sequentiallyConsistent)
                }
                overlap.inside.subtract(1, ordering: .sequentiallyConsistent)
            })
            .subscribe(recorder)
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            for value in 0..<500 { subjects.all[index].send(index * 1000 + value) }
        }
        #expect(recorder.values.count == 2000)
        #expect(Set(recorder.values).count == 2000)
        let overlapped = overlap.overlapped.load(ordering: .sequentiallyConsistent)
        #expect(!overlapped, "the subscriber was never called concurrently")
    }

    @Test("cancelling the combined subscription cancels every upstream")
    func cancelReachesUpstreams() {
        let cancelled = Mutex<[Int]>([])
        let a = PassthroughSubject<Int, Never>().handleEvents(receiveCancel: { cancelled.withLock { $0.append(1) } })
        let b = PassthroughSubject<Int, Never>().handleEvents(receiveCancel: { cancelled.withLock { $0.append(2) } })
        let cancellable = a.combineLatest(b).sink { _ in }
        cancellable.cancel()
        #expect(cancelled.withLock { $0.sorted() } == [1, 2])
    }
}

#if !canImport(Combine)
// `combineLatest` as Apple's Combine has it, for Linux where OpenCombine 0.14 lacks it. On Apple platforms
// Combine's own is used. Semantics and demand: see `Combinator`.
public import OpenCombineShim

extension Publishers {
    /// Publishes a tuple of the newest value of each of two publishers, once both have published, and again
    /// each time either publishes. Fails as soon as either fails; finishes when both have finished (or when
    /// one finishes without ever publishing).
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
        public typealias Output = (A.Output, B.Output)
        public typealias Failure = A.Failure

        public let a: A
        public let b: B

        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // The casts cannot fail: slot i only ever holds upstream i's output.
            let inner = Combinator<Output, Failure>(
                count: 2, mode: .latest { ($0[0] as! A.Output, $0[1] as! B.Output) },
                downstream: AnySubscriber(subscriber))
            inner.start([
                { a.subscribe($0.side(0, A.Output.self)) },
                { b.subscribe($0.side(1, B.Output.self)) },
            ])
        }
    }

    /// ``CombineLatest`` of three publishers.
    public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher
    where A.Failure == B.Failure, B.Failure == C.Failure {
        public typealias Output = (A.Output, B.Output, C.Output)
        public typealias Failure = A.Failure

        public let a: A
        public let b: B
        public let c: C

        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Combinator<Output, Failure>(
                count: 3, mode: .latest { ($0[0] as! A.Output, $0[1] as! B.Output, $0[2] as! C.Output) },
                downstream: AnySubscriber(subscriber))
            inner.start([
                { a.subscribe($0.side(0, A.Output.self)) },
                { b.subscribe($0.side(1, B.Output.self)) },
                { c.subscribe($0.side(2, C.Output.self)) },
            ])
        }
    }

    /// ``CombineLatest`` of four publishers.
    public struct CombineLatest4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
    where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure {
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)
        public typealias Failure = A.Failure

        public let a: A
        public let b: B
        public let c: C
        public let d: D

        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Combinator<Output, Failure>(
                count: 4,
                mode: .latest { ($0[0] as! A.Output, $0[1] as! B.Output, $0[2] as! C.Output, $0[3] as! D.Output) },
                downstream: AnySubscriber(subscriber))
            inner.start([
                { a.subscribe($0.side(0, A.Output.self)) },
                { b.subscribe($0.side(1, B.Output.self)) },
                { c.subscribe($0.side(2, C.Output.self)) },
                { d.subscribe($0.side(3, D.Output.self)) },
            ])
        }
    }
}

extension Publisher {
    /// The newest values of this publisher and `other` as a tuple, once both have published and on every
    /// later value of either: `home.rooms().batched().combineLatest(home.devices().batched())`.
    public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P>
    where Failure == P.Failure {
        Publishers.CombineLatest(self, other)
    }

    /// ``combineLatest(_:)`` with the tuple turned into one value by `transform`.
    public func combineLatest<P: Publisher, T>(
        _ other: P, _ transform: @escaping (Output, P.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest<Self, P>, T> where Failure == P.Failure {
        Publishers.CombineLatest(self, other).map(transform)
    }

    /// The newest values of this publisher and two others.
    public func combineLatest<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q)
        -> Publishers.CombineLatest3<Self, P, Q>
    where Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.CombineLatest3(self, publisher1, publisher2)
    }

    /// The newest values of this publisher and two others, turned into one value by `transform`.
    public func combineLatest<P: Publisher, Q: Publisher, T>(
        _ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T>
    where Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.CombineLatest3(self, publisher1, publisher2).map(transform)
    }

    /// The newest values of this publisher and three others.
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R)
        -> Publishers.CombineLatest4<Self, P, Q, R>
    where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)
    }

    /// The newest values of this publisher and three others, turned into one value by `transform`.
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher, T>(
        _ publisher1: P, _ publisher2: Q, _ publisher3: R,
        _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
    where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.CombineLatest4(self, publisher1, publisher2, publisher3).map(transform)
    }
}
#endif

#if !canImport(Combine)
// `merge` as Apple's Combine has it, for Linux where OpenCombine 0.14 lacks it. On Apple platforms Combine's
// own is used. Semantics and demand: see `Combinator`.
public import OpenCombineShim

extension Publishers {
    /// Publishes every value of two publishers of the same output, as they come. Fails as soon as either
    /// fails; finishes when both have finished.
    public struct Merge<A: Publisher, B: Publisher>: Publisher
    where A.Output == B.Output, A.Failure == B.Failure {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        public let a: A
        public let b: B

        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            Combinator<Output, Failure>(count: 2, mode: .merge, downstream: AnySubscriber(subscriber)).start([
                { a.subscribe($0.side(0, Output.self)) },
                { b.subscribe($0.side(1, Output.self)) },
            ])
        }
    }

    /// ``Merge`` of three publishers.
    public struct Merge3<A: Publisher, B: Publisher, C: Publisher>: Publisher
    where A.Output == B.Output, B.Output == C.Output, A.Failure == B.Failure, B.Failure == C.Failure {
        public typealias Output = A.Output
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
            Combinator<Output, Failure>(count: 3, mode: .merge, downstream: AnySubscriber(subscriber)).start([
                { a.subscribe($0.side(0, Output.self)) },
                { b.subscribe($0.side(1, Output.self)) },
                { c.subscribe($0.side(2, Output.self)) },
            ])
        }
    }

    /// ``Merge`` of four publishers.
    public struct Merge4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
    where A.Output == B.Output, B.Output == C.Output, C.Output == D.Output,
        A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure {
        public typealias Output = A.Output
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
            Combinator<Output, Failure>(count: 4, mode: .merge, downstream: AnySubscriber(subscriber)).start([
                { a.subscribe($0.side(0, Output.self)) },
                { b.subscribe($0.side(1, Output.self)) },
                { c.subscribe($0.side(2, Output.self)) },
                { d.subscribe($0.side(3, Output.self)) },
            ])
        }
    }

    /// Publishes every value of any number of publishers of one type, as they come: the merge of a list of
    /// device publishers, say.
    public struct MergeMany<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        public let publishers: [Upstream]

        public init(_ upstream: Upstream...) { publishers = upstream }
        public init<S: Swift.Sequence>(_ upstream: S) where S.Element == Upstream { publishers = Array(upstream) }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            guard !publishers.isEmpty else {
                return Empty<Output, Failure>().receive(subscriber: subscriber)
            }
            let subscribes = publishers.enumerated().map { index, publisher in
                { (inner: Combinator<Output, Failure>) in publisher.subscribe(inner.side(index, Output.self)) }
            }
            Combinator<Output, Failure>(count: publishers.count, mode: .merge, downstream: AnySubscriber(subscriber))
                .start(subscribes)
        }

        /// This merge and one more publisher of the same type.
        public func merge(with other: Upstream) -> MergeMany<Upstream> { MergeMany(publishers + [other]) }
    }
}

extension Publisher {
    /// Every value of this publisher and of `other`, as they come.
    public func merge<P: Publisher>(with other: P) -> Publishers.Merge<Self, P>
    where Output == P.Output, Failure == P.Failure {
        Publishers.Merge(self, other)
    }

    /// Every value of this publisher and of two others, as they come.
    public func merge<P: Publisher, Q: Publisher>(with p: P, _ q: Q) -> Publishers.Merge3<Self, P, Q>
    where Output == P.Output, P.Output == Q.Output, Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.Merge3(self, p, q)
    }

    /// Every value of this publisher and of three others, as they come.
    public func merge<P: Publisher, Q: Publisher, R: Publisher>(with p: P, _ q: Q, _ r: R)
        -> Publishers.Merge4<Self, P, Q, R>
    where Output == P.Output, P.Output == Q.Output, Q.Output == R.Output,
        Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.Merge4(self, p, q, r)
    }
}
#endif

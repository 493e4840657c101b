import Synchronization

/// The parts of a response a client call learns once: its initial metadata
/// and, at the end, its status and trailers. Readers wait for them.
final class ResponseHead: Sendable {
    private struct State {
        var initial: Result<Metadata, RPCError>?
        var end: (Status, Metadata)?
        var initialWaiters: [CheckedContinuation<Metadata, any Error>] = []
        var endWaiters: [CheckedContinuation<(Status, Metadata), Never>] = []
    }

    private let state = Mutex(State())

    /// Loop side: the response headers arrived.
    func setInitial(_ metadata: Metadata) {
        let waiters = state.withLock { s -> [CheckedContinuation<Metadata, any Error>] in
            guard s.initial == nil else { return [] }
            s.initial = .success(metadata)
            defer { s.initialWaiters = [] }
            return s.initialWaiters
        }
        for waiter in waiters { waiter.resume(returning: metadata) }
    }

    /// Loop side: the call ended. Initial metadata not yet seen becomes
    /// empty (trailers-only) or, for a failure, the error.
    func setEnd(_ status: Status, trailers: Metadata) {
        let (initialWaiters, initial, endWaiters) = state.withLock { s in
            var initialWaiters: [CheckedContinuation<Metadata, any Error>] = []
            if s.initial == nil {
                s.initial = .success([:])
                initialWaiters = s.initialWaiters
                s.initialWaiters = []
            }
            guard s.end == nil else { return (initialWaiters, s.initial!, [CheckedContinuation<(Status, Metadata), Never>]()) }
            s.end = (status, trailers)
            defer { s.endWaiters = [] }
            return (initialWaiters, s.initial!, s.endWaiters)
        }
        for waiter in initialWaiters { waiter.resume(with: initial.mapError { $0 as any Error }) }
        for waiter in endWaiters { waiter.resume(returning: (status, trailers)) }
    }

    func initialMetadata() async throws -> Metadata {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { s -> Result<Metadata, RPCError>? in
                if let initial = s.initial { return initial }
                s.initialWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }

    func end() async -> (Status, Metadata) {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> (Status, Metadata)? in
                if let end = s.end { return end }
                s.endWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    var isFinished: Bool { state.withLock { $0.end != nil } }

    /// The initial metadata if it arrived (an error in its place counts as none).
    var initialIfKnown: Metadata? { state.withLock { try? $0.initial?.get() } }
}

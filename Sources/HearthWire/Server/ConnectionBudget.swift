import Synchronization

/// One server connection's share of the budgets: bytes its handlers have queued for the peer, charged to
/// the connection and to the server (``WireBudget``) at once. Shared by the connection's stream bridges,
/// which write from their handlers' tasks, hence atomics.
final class ConnectionBudget: Sendable {
    /// What a write that queued bytes ran into.
    enum Verdict: Equatable {
        case fine
        /// The connection has more queued than its budget: its peer does not read.
        case connectionExhausted
        /// The server has more queued than its budget.
        case serverExhausted
    }

    let server: WireBudget
    private let outbound = Atomic<Int>(0)

    init(server: WireBudget) { self.server = server }

    /// Records `delta` queued bytes (negative when taken or dropped).
    func queued(_ delta: Int) {
        guard delta != 0 else { return }
        outbound.add(delta, ordering: .relaxed)
        server.outboundQueued(delta)
    }

    /// Whether the connection's or the server's budget is spent now. Asked on every write, not only when
    /// memory grows: a buffer fills up to its allocation without growing.
    var verdict: Verdict {
        if outbound.load(ordering: .relaxed) > server.limits.queuedOutboundBytesPerConnection {
            return .connectionExhausted
        }
        return server.outboundExhausted ? .serverExhausted : .fine
    }

    /// Bytes queued now by this connection's handlers.
    var queuedBytes: Int { outbound.load(ordering: .relaxed) }
}

import Synchronization

/// What one ``WireServer`` holds for all of its connections at once: live nghttp2 sessions, bytes of
/// incoming partial messages, bytes queued for slow readers, and how often a peer ran into a budget.
///
/// Every connection charges the server-wide budget as well as its own (see `ConnectionBudget`), so no
/// single peer, and no crowd of peers, can make the hub hold more than the configured bytes. The figures
/// are read without locks (relaxed atomics): they are for metrics and tests, not for ordering.
final class WireBudget: Sendable {
    let limits: ConnectionConfiguration.Budgets

    private let sessions = Atomic<Int>(0)
    private let partial = Atomic<Int>(0)
    private let outbound = Atomic<Int>(0)
    private let partialRefusals = Atomic<Int>(0)
    private let unauthenticatedRefusals = Atomic<Int>(0)
    private let firstMessageTimeouts = Atomic<Int>(0)
    private let calmClosures = Atomic<Int>(0)
    private let outboundResets = Atomic<Int>(0)
    private let closedConnections = Atomic<Int>(0)

    init(limits: ConnectionConfiguration.Budgets) { self.limits = limits }

    // MARK: Sessions

    func sessionCreated() { sessions.add(1, ordering: .relaxed) }
    func sessionFreed() { sessions.subtract(1, ordering: .relaxed) }

    // MARK: Partial messages

    /// Takes `bytes` of the hub-wide partial-message budget.
    /// - Returns: false (and takes nothing) when that would exceed it.
    func reservePartial(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        let after = partial.add(bytes, ordering: .relaxed).newValue
        if after > limits.partialMessageBytesPerServer {
            partial.subtract(bytes, ordering: .relaxed)
            return false
        }
        return true
    }

    func releasePartial(_ bytes: Int) {
        if bytes > 0 { partial.subtract(bytes, ordering: .relaxed) }
    }

    // MARK: Outbound

    /// Counts bytes queued for peers (written by handlers, not yet taken by nghttp2).
    func outboundQueued(_ delta: Int) {
        if delta != 0 { outbound.add(delta, ordering: .relaxed) }
    }

    /// Whether the server-wide outbound budget is spent.
    var outboundExhausted: Bool { outbound.load(ordering: .relaxed) >= limits.queuedOutboundBytesPerServer }

    // MARK: Refusals

    func countPartialRefusal() { partialRefusals.add(1, ordering: .relaxed) }
    func countUnauthenticatedRefusal() { unauthenticatedRefusals.add(1, ordering: .relaxed) }
    func countFirstMessageTimeout() { firstMessageTimeouts.add(1, ordering: .relaxed) }
    func countCalmClosure() { calmClosures.add(1, ordering: .relaxed) }
    func countOutboundReset() { outboundResets.add(1, ordering: .relaxed) }
    func countClosedConnection() { closedConnections.add(1, ordering: .relaxed) }

    /// The figures now.
    var statistics: WireServer.Statistics {
        WireServer.Statistics(
            sessionsAlive: sessions.load(ordering: .relaxed),
            partialMessageBytes: partial.load(ordering: .relaxed),
            queuedOutboundBytes: outbound.load(ordering: .relaxed),
            partialBudgetRefusals: partialRefusals.load(ordering: .relaxed),
            unauthenticatedRefusals: unauthenticatedRefusals.load(ordering: .relaxed),
            firstMessageTimeouts: firstMessageTimeouts.load(ordering: .relaxed),
            enhanceYourCalmClosures: calmClosures.load(ordering: .relaxed),
            outboundBudgetResets: outboundResets.load(ordering: .relaxed),
            connectionsClosed: closedConnections.load(ordering: .relaxed))
    }
}

extension WireServer {
    /// What a server holds and has refused, across its connections; read with ``WireServer/statistics``.
    public struct Statistics: Sendable, Equatable {
        /// nghttp2 sessions not yet freed. Returns to 0 once every connection has closed.
        public var sessionsAlive: Int
        /// Bytes of incoming messages held while they are incomplete.
        public var partialMessageBytes: Int
        /// Bytes written by handlers and not yet handed to the socket.
        public var queuedOutboundBytes: Int
        /// Calls ended with RESOURCE_EXHAUSTED because a partial-message budget was spent.
        public var partialBudgetRefusals: Int
        /// Calls refused at HEADERS by the call gate (no or wrong credentials).
        public var unauthenticatedRefusals: Int
        /// Calls ended because their first message did not arrive in time.
        public var firstMessageTimeouts: Int
        /// Connections closed with GOAWAY ENHANCE_YOUR_CALM (too many pings, budgets).
        public var enhanceYourCalmClosures: Int
        /// Streams reset because the server's queued-outbound budget was spent and their reader was behind.
        public var outboundBudgetResets: Int
        /// Connections closed and released since the server started.
        public var connectionsClosed: Int
    }
}

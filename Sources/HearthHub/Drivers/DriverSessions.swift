import HearthProto
import HearthWire
import Synchronization

/// The connected drivers and the commands in flight to them.
///
/// A command is sent down the driver's stream with a correlation id and answered when the driver's
/// `CommandResult` with that id arrives, when the caller's deadline passes (DEADLINE_EXCEEDED), when the
/// caller goes away (CANCELLED), or when the driver disconnects (UNAVAILABLE) — whichever comes first, once.
final class DriverSessions: Sendable {
    /// Messages waiting to be written to one driver. Bounded: a driver that stops reading gets refusals,
    /// not an ever-growing queue.
    struct Session: Sendable {
        var serial: Int
        var outbound: AsyncStream<Hearth_V1_HubMessage>.Continuation
    }

    private struct State {
        var sessions: [String: Session] = [:]
        var pending: [UInt64: (driver: String, continuation: Waiter)] = [:]
        var nextCorrelation: UInt64 = 1
        var nextSerial = 1
    }

    private let state = Mutex(State())
    /// Messages buffered per driver before commands to it are refused.
    let outboundLimit: Int

    init(outboundLimit: Int = 1024) {
        self.outboundLimit = outboundLimit
    }

    private typealias Waiter = CheckedContinuation<Hearth_V1_CommandResult, any Error>

    /// Registers a driver's session, replacing (and ending) an older one of the same driver. Commands
    /// in flight to the older session fail with UNAVAILABLE at once: the new session never saw them.
    func open(driver: String) -> (serial: Int, outbound: AsyncStream<Hearth_V1_HubMessage>) {
        let (stream, continuation) = AsyncStream<Hearth_V1_HubMessage>.makeStream(
            bufferingPolicy: .bufferingOldest(outboundLimit))
        let (serial, old, orphaned) = state.withLock { s -> (Int, Session?, [Waiter]) in
            let serial = s.nextSerial
            s.nextSerial += 1
            let old = s.sessions.updateValue(Session(serial: serial, outbound: continuation), forKey: driver)
            return (serial, old, old == nil ? [] : Self.takePending(of: driver, &s))
        }
        old?.outbound.finish()
        for waiter in orphaned {
            waiter.resume(throwing: HubError(.unavailable, "driver '\(driver)' reconnected before answering"))
        }
        return (serial, stream)
    }

    /// Whether `serial` is still the driver's session (false once a newer one replaced it).
    func isCurrent(driver: String, serial: Int) -> Bool {
        state.withLock { $0.sessions[driver]?.serial == serial }
    }

    private static func takePending(of driver: String, _ s: inout State) -> [Waiter] {
        let ids = s.pending.filter { $0.value.driver == driver }.map(\.key)
        return ids.compactMap { s.pending.removeValue(forKey: $0)?.continuation }
    }

    /// Ends a session; fails its commands in flight. Returns false when a newer session had replaced it.
    @discardableResult
    func close(driver: String, serial: Int) -> Bool {
        let (current, failed) = state.withLock { s -> (Bool, [Waiter]) in
            guard s.sessions[driver]?.serial == serial else { return (false, []) }
            s.sessions[driver] = nil
            return (true, Self.takePending(of: driver, &s))
        }
        for continuation in failed {
            continuation.resume(throwing: HubError(.unavailable, "driver '\(driver)' disconnected before answering"))
        }
        return current
    }

    /// Sends a request built with a fresh correlation id and waits for its result.
    ///
    /// The driver's answer resumes the caller directly (one wake-up); the deadline is a timer task beside
    /// the call, cancelled once the call ends, so it is off the answer's path.
    func call(
        driver: String, timeout: Duration, _ build: (UInt64) -> Hearth_V1_HubMessage
    ) async throws -> Hearth_V1_CommandResult {
        let correlation = state.withLock { s in
            defer { s.nextCorrelation += 1 }
            return s.nextCorrelation
        }
        let message = build(correlation)
        var timer: DeadlineTimer?
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard self.register(correlation, driver: driver, message: message, continuation) else { return }
                // Armed once the waiter is registered, so that even a deadline already past finds it; on the
                // caller's event loop (where the hub runs its handlers) it wakes no other thread.
                timer = DeadlineTimer(after: timeout) {
                    self.fail(correlation, HubError(.deadlineExceeded, "driver '\(driver)' did not answer in time"))
                }
            }
        } onCancel: {
            self.fail(correlation, HubError(.cancelled, "the caller went away"))
        }
    }

    /// Registers the waiter and queues the message, unless the caller is already cancelled: checked under
    /// the lock that ``fail(_:_:)`` takes, so a cancellation either finds the waiter or is seen here.
    /// Returns whether the waiter now waits (false: it was resumed with the refusal).
    private func register(
        _ correlation: UInt64, driver: String, message: Hearth_V1_HubMessage,
        _ continuation: Waiter
    ) -> Bool {
        let refusal: HubError? = state.withLock { s in
            if Task.isCancelled { return HubError(.cancelled, "the caller went away") }
            guard let session = s.sessions[driver] else {
                return HubError(.unavailable, "driver '\(driver)' is not connected")
            }
            s.pending[correlation] = (driver, continuation)
            switch session.outbound.yield(message) {
            case .enqueued: return nil
            case .dropped:
                s.pending[correlation] = nil
                return HubError(.resourceExhausted, "driver '\(driver)' has too many requests waiting")
            case .terminated:
                s.pending[correlation] = nil
                return HubError(.unavailable, "driver '\(driver)' is disconnecting")
            @unknown default:
                s.pending[correlation] = nil
                return HubError(.internal, "unexpected enqueue result")
            }
        }
        guard let refusal else { return true }
        continuation.resume(throwing: refusal)
        return false
    }

    /// Delivers a driver's result. Returns false for an unknown (late, or never sent) correlation id.
    @discardableResult
    func complete(driver: String, _ result: Hearth_V1_CommandResult) -> Bool {
        let continuation = state.withLock { s -> Waiter? in
            guard s.pending[result.correlationID]?.driver == driver else { return nil }
            return s.pending.removeValue(forKey: result.correlationID)?.continuation
        }
        continuation?.resume(returning: result)
        return continuation != nil
    }

    private func fail(_ correlation: UInt64, _ error: HubError) {
        let continuation = state.withLock { $0.pending.removeValue(forKey: correlation)?.continuation }
        continuation?.resume(throwing: error)
    }

    /// Queues a message (a reply, a rejection) to a driver's session; false when it is gone or its queue full.
    @discardableResult
    func send(driver: String, serial: Int, _ message: Hearth_V1_HubMessage) -> Bool {
        state.withLock { s in
            guard let session = s.sessions[driver], session.serial == serial else { return false }
            if case .enqueued = session.outbound.yield(message) { return true }
            return false
        }
    }

    /// Commands waiting for a driver's answer.
    var inFlight: Int { state.withLock { $0.pending.count } }
}

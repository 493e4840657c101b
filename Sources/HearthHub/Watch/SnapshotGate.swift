import DequeModule
import Synchronization

/// Lets a few watchers at a time encode snapshot chunks.
///
/// When many clients watch from 0 at once (a reconnect storm after a restart, a thousand watchers opened
/// by one peer), each snapshot chunk is CPU work on an event loop; left alone they would queue a thousand
/// jobs ahead of the drivers' reports and every other call on those loops. Through the gate only `limit`
/// watchers build a chunk at a time and the others wait suspended, so a report waits for at most `limit`
/// chunks. A slot is held only while a chunk is built (or while waiting for another watcher that builds the
/// same block, ``SnapshotCache/claim(_:)``), never while it is sent, so a reader that stops reading cannot
/// keep one.
final class SnapshotGate: Sendable {
    private struct State {
        var free: Int
        var waiters: Deque<CheckedContinuation<Void, Never>> = []
    }

    private let state: Mutex<State>

    init(limit: Int) { state = Mutex(State(free: max(1, limit))) }

    /// Waits for a slot (FIFO).
    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { s -> Bool in
                guard s.free > 0 else {
                    s.waiters.append(continuation)
                    return false
                }
                s.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives the slot to the next waiter, or back.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let next = s.waiters.popFirst() { return next }
            s.free += 1
            return nil
        }
        next?.resume()
    }
}

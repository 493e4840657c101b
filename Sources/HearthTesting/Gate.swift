import Synchronization

/// A one-shot latch for tests: tasks that ``wait()`` suspend until ``open()`` is called, and wait no more
/// after it. A watcher's `send` waits at one to stop reading; a handler waits at one to stay running.
public final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    /// Returns once the gate is open (at once if it already is).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { s in
                if !s.open { s.waiters.append(continuation) }
                return s.open
            }
            if open { continuation.resume() }
        }
    }

    /// Opens the gate for every waiter, now and later.
    public func open() {
        for waiter in state.withLock({ s in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }) { waiter.resume() }
    }
}

import Synchronization

/// Where a connection handler sends the calls it accepts, and says that it will send no more.
protocol CallSink: Sendable {
    /// Runs an accepted call. Called on the connection's event loop.
    func start(_ call: ServerCall)
    /// No more calls will come; safe to call more than once.
    func finish()
}

/// A connection on an embedded channel (the wire tests' in-memory server, the fuzz harness) hands its calls to
/// a stream, from which the caller takes and runs them itself.
extension AsyncStream<ServerCall>.Continuation: CallSink {
    func start(_ call: ServerCall) { yield(call) }
}

/// Starts each call of one connection as a task of its own, straight from the event loop, and lets the
/// connection's serving task wait until the connection has finished and its last call has ended.
///
/// The calls once went through an `AsyncStream` to a task group in the serving task: every call then woke
/// that task only for it to create the call's task, a second job and a continuation per call (about a tenth
/// of the echo server's CPU per unary call). What the group gave is kept: ``waitUntilDone()`` returns only
/// after every call has ended, and cancelling the serving task closes the channel, which fails each stream
/// and so cancels its handler through its bridge.
final class CallSpawner: CallSink {
    private struct State {
        var running = 0
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?

        /// The waiter to resume, once nothing runs and nothing more can start.
        mutating func takeWaiterIfDone() -> CheckedContinuation<Void, Never>? {
            guard finished, running == 0 else { return nil }
            defer { waiter = nil }
            return waiter
        }
    }

    private let state = Mutex(State())
    /// The connection's event loop for handlers that run there; nil for the global executor.
    private let executor: EventLoopTaskExecutor?

    init(executor: EventLoopTaskExecutor?) {
        self.executor = executor
    }

    func start(_ call: ServerCall) {
        state.withLock { $0.running += 1 }
        Task(executorPreference: executor) {
            await call.run()
            self.ended()
        }
    }

    func finish() {
        state.withLock { s in
            s.finished = true
            return s.takeWaiterIfDone()
        }?.resume()
    }

    private func ended() {
        state.withLock { s in
            s.running -= 1
            return s.takeWaiterIfDone()
        }?.resume()
    }

    /// Returns once ``finish()`` has been called and every started call has ended.
    func waitUntilDone() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { s in
                s.waiter = continuation
                return s.takeWaiterIfDone()
            }?.resume()
        }
    }
}

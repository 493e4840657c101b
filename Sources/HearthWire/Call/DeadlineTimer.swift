internal import NIOCore
internal import NIOPosix

/// A one-shot timer for a call's deadline, armed on the event loop of the calling thread when it runs on
/// one, else on a task.
///
/// A handler running on its connection's event loop (the server's default, and DriverKit's for command
/// handlers) then arms and cancels its deadline on that loop's own timer list: no task is started and no
/// other thread is woken. A `Task { try await Task.sleep(for:) }` per call started a job on the global
/// executor, which woke a thread of its pool only to register a sleep.
///
/// ```swift
/// let timer = DeadlineTimer(after: .seconds(5)) { fail(id, "no answer in time") }
/// defer { timer.cancel() }
/// ```
public struct DeadlineTimer: Sendable {
    private enum Armed: Sendable {
        case loop(Scheduled<Void>)
        case task(Task<Void, Never>)
    }

    private let armed: Armed

    /// Runs `body` once `delay` has passed, unless ``cancel()`` is called first. On an event loop `body` runs
    /// on that loop: it must be short.
    public init(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop {
            armed = .loop(loop.scheduleTask(in: .nanoseconds(max(0, delay.nanosecondsClamped)), body))
        } else {
            armed = .task(
                Task {
                    guard (try? await Task.sleep(for: delay)) != nil else { return }  // cancelled
                    body()
                })
        }
    }

    /// Disarms the timer; `body` does not run if it has not started. Safe to call more than once.
    public func cancel() {
        switch armed {
        case .loop(let scheduled): scheduled.cancel()
        case .task(let task): task.cancel()
        }
    }
}

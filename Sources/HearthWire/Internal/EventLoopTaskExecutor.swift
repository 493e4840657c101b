internal import NIOCore

/// Runs tasks on a NIO event loop, so that a connection's handlers run on
/// the thread that owns its socket: a handler's reads and writes then reach
/// the loop without waking another thread.
///
/// The caveat is the usual one for event loops: a handler that computes for
/// long delays its connection's I/O. Such work belongs in a task of its own
/// (or the server can be configured to run handlers on the global executor).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

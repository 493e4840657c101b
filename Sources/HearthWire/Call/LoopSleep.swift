internal import NIOPosix

/// Sleeps until `deadline` on the timer of the event loop the caller runs on, when it runs on one (a handler
/// or stream pump on its connection's loop); elsewhere it is `Task.sleep`.
///
/// A `Task.sleep` arms a libdispatch timer: when it fires, a thread of the dispatch pool wakes only to
/// enqueue the task back on its loop, which is woken in turn. On the loop's own timer list (the sleep of
/// ``SleepAlarm``, as ``ClientCall/sleep(for:)`` uses it) the wait costs neither wake-up, which matters to a
/// watch that waits out its update interval once per response.
///
/// - Throws: `CancellationError` when the task is cancelled first (at once, not at the deadline).
public func sleepOnEventLoop(until deadline: ContinuousClock.Instant) async throws {
    guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else {
        try await Task.sleep(until: deadline, clock: .continuous)
        return
    }
    let delay = ContinuousClock.now.duration(to: deadline)
    guard delay > .zero else { return try Task.checkCancellation() }
    try await SleepAlarm().sleep(for: delay, on: loop)
}

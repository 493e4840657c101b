import Dispatch

/// Runs async work to completion from libFuzzer's synchronous callback.
///
/// The fuzzer calls `LLVMFuzzerTestOneInput` on its main thread, outside Swift concurrency; the work runs in
/// a task on the global executor while that thread waits. Nothing here may be called from a task.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// Hands a result from the task to the waiting thread. The semaphore orders the write before the read, so
/// no lock is needed; the compiler cannot see that, hence `@unchecked`.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

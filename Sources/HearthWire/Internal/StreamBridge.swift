import DequeModule
internal import NIOCore
import Synchronization

/// The meeting point of one HTTP/2 stream's event-loop side and the task
/// that reads its messages and writes its replies.
///
/// Inbound, the loop appends whole messages; the reader takes them. Flow
/// control is opened only as the reader drains: while more than
/// `inboundHighWatermark` bytes wait, the loop holds back the window update
/// for what arrives, and the reader releases it once the queue falls below
/// the low watermark. A slow reader therefore slows its sender.
///
/// Outbound, writers append framed bytes to one buffer and the loop's data
/// provider reads from it directly, so a burst of small writes crosses
/// threads once. A writer suspends while more than `outboundHighWatermark`
/// bytes wait and resumes when the peer has taken them down to the low mark.
///
/// All fields live under one `Mutex`; continuations are resumed and the
/// loop is notified outside it.
final class StreamBridge: Sendable {
    /// What the loop side must do when the task side calls in.
    enum LoopRequest: Sendable {
        /// Outbound bytes or the end of the outbound side are waiting.
        case outboundReady
        /// The reader consumed this many bytes; open the window by as much.
        case consumed(Int)
        /// A write found a queued-outbound budget spent (server streams only).
        case outboundOverBudget(ConnectionBudget.Verdict)
    }

    struct Limits: Sendable {
        /// The receive limit, which decompressed messages are held to as the reader takes them.
        var maxReceiveMessageSize = 4 * 1024 * 1024
        var inboundHighWatermark = 256 * 1024
        var inboundLowWatermark = 64 * 1024
        var outboundHighWatermark = 256 * 1024
        var outboundLowWatermark = 64 * 1024
    }

    /// How the outbound side ended.
    enum OutboundEnd: Sendable {
        /// Server: trailers with a status. Client: half-close (status unused).
        case finished(Status, Metadata)
    }

    private struct State {
        var inbound = Deque<InboundMessage>()
        var inboundBytes = 0
        var inboundEnd: Result<Void, RPCError>?
        var reader: CheckedContinuation<InboundMessage?, any Error>?
        var heldBytes = 0
        var consumeRequested = false

        var outbound = ByteBuffer()
        /// Since when `outbound` has held bytes without the peer taking any: set when it fills from empty
        /// and renewed whenever the loop takes bytes; nil while empty. A reader keeping up renews it every
        /// loop tick; a reader that stopped lets it age.
        var unsentSince: ContinuousClock.Instant?
        var outboundEnd: OutboundEnd?
        var writer: CheckedContinuation<Void, any Error>?
        var outboundReadyRequested = false
        /// Set when the stream can no longer send (reset, closed, deadline).
        var failure: RPCError?
        /// Set when the stream ended with bytes still queued outbound: a write waiting for room then failed.
        /// A write whose bytes had all left before the end (a server may answer once it has the whole
        /// request, before our task got back from appending it) succeeded.
        var discardedUnsent = false

        var task: TaskHandle?
        var cancelling = false
        var cancelRequested = false
    }

    /// Wraps the handler's task so the loop can cancel it.
    ///
    /// `UnsafeCurrentTask` is not `Sendable` because it must not outlive its
    /// task. It is safe here: it is stored by the task itself, only used under
    /// the `cancelling` flag, and ``detachTask()`` (the task's last act) waits
    /// until no cancel is in flight before clearing it.
    private struct TaskHandle: @unchecked Sendable {
        let task: UnsafeCurrentTask
    }

    /// How long a stream's queue may go without draining before it counts as behind, when the server's
    /// outbound budget is spent.
    static let behindAfter: Duration = .seconds(1)

    let limits: Limits
    /// The encoding of outbound messages (``MessageWriter`` compresses with it).
    let outboundCompression: OutboundCompression
    private let state: Mutex<State>
    private let notify: @Sendable (LoopRequest) -> Void
    /// The connection's queued-outbound account (server streams); every byte appended to or removed
    /// from `outbound` is charged to it under the lock.
    private let budget: ConnectionBudget?

    /// - Parameters:
    ///   - budget: where queued outbound bytes are counted; nil for client streams.
    ///   - notify: called (off the lock, from any thread) when the loop must act; it hops to the loop itself.
    ///   - outboundCompression: the encoding of outbound messages; none by default.
    init(
        limits: Limits, budget: ConnectionBudget? = nil, outboundCompression: OutboundCompression = .none,
        notify: @escaping @Sendable (LoopRequest) -> Void
    ) {
        self.limits = limits
        self.outboundCompression = outboundCompression
        self.state = Mutex(State())
        self.budget = budget
        self.notify = notify
    }

    /// Drops what is queued outbound, with its memory, and takes it off the budget.
    private func clearOutbound(_ s: inout State) {
        if s.outbound.readableBytes > 0 { s.discardedUnsent = true }
        if s.outbound.capacity > 0 { budget?.queued(-s.outbound.capacity) }
        s.outbound = ByteBuffer()
        s.unsentSince = nil
    }
}

// MARK: - Inbound

extension StreamBridge {
    /// Loop side: appends complete messages that arrived in `chunkBytes` bytes.
    /// - Returns: the bytes the loop may return to the peer's window now; the
    ///   rest is released as the reader drains.
    func deliver(_ messages: some Sequence<InboundMessage>, chunkBytes: Int) -> Int {
        let (reader, first, release): (CheckedContinuation<InboundMessage?, any Error>?, InboundMessage?, Int) =
            state.withLock { s in
                for message in messages {
                    s.inbound.append(message)
                    s.inboundBytes += message.bytes.readableBytes + GRPCMessageFramer.prefixSize
                }
                var reader: CheckedContinuation<InboundMessage?, any Error>? = nil
                var first: InboundMessage? = nil
                var release = chunkBytes
                if let waiting = s.reader, let (message, held) = popInbound(&s) {
                    reader = waiting
                    first = message
                    s.reader = nil
                    // A reader that keeps up takes every message here: credit held back earlier goes back
                    // now, or it would never return to the peer's window.
                    release += held
                }
                if s.inboundBytes >= limits.inboundHighWatermark {
                    s.heldBytes += chunkBytes
                    release -= chunkBytes
                }
                return (reader, first, release)
            }
        reader?.resume(returning: first)
        return release
    }

    /// Loop side: no more messages will come.
    func finishInbound(_ result: Result<Void, RPCError>) {
        let reader = state.withLock { s -> CheckedContinuation<InboundMessage?, any Error>? in
            guard s.inboundEnd == nil else { return nil }
            s.inboundEnd = result
            guard s.inbound.isEmpty, let reader = s.reader else { return nil }
            s.reader = nil
            return reader
        }
        guard let reader else { return }
        switch result {
        case .success: reader.resume(returning: nil)
        case .failure(let error): reader.resume(throwing: error)
        }
    }

    /// Takes the first queued message and the window credit its taking frees (bytes held back while the
    /// queue was above its high watermark, once it is below the low one).
    private func popInbound(_ s: inout State) -> (InboundMessage, release: Int)? {
        guard let message = s.inbound.popFirst() else { return nil }
        s.inboundBytes -= message.bytes.readableBytes + GRPCMessageFramer.prefixSize
        var release = 0
        if s.heldBytes > 0, s.inboundBytes < limits.inboundLowWatermark {
            release = s.heldBytes
            s.heldBytes = 0
        }
        return (message, release)
    }

    /// Task side: the next message if one has arrived, without waiting; nil when none is queued (the end of
    /// the inbound side, or its failure, is left for ``nextInbound()`` to report).
    func nextInboundIfArrived() -> InboundMessage? {
        guard let (message, release) = state.withLock({ popInbound(&$0) }) else { return nil }
        if release > 0 { notify(.consumed(release)) }
        return message
    }

    /// Task side: the next message, or nil at the end of the inbound side.
    func nextInbound() async throws -> InboundMessage? {
        enum Step { case message(InboundMessage?, release: Int), failed(RPCError), wait }
        let step: Step = state.withLock { s in
            if let (message, release) = popInbound(&s) { return .message(message, release: release) }
            switch s.inboundEnd {
            case .success: return .message(nil, release: 0)
            case .failure(let error): return .failed(error)
            case nil: return .wait
            }
        }
        switch step {
        case .message(let message, let release):
            if release > 0 { notify(.consumed(release)) }
            return message
        case .failed(let error):
            throw error
        case .wait:
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    var release = 0
                    let immediate: Result<InboundMessage?, any Error>? = state.withLock { s in
                        if let (message, held) = popInbound(&s) {
                            release = held
                            return .success(message)
                        }
                        switch s.inboundEnd {
                        case .success: return .success(nil)
                        case .failure(let error): return .failure(error)
                        case nil:
                            if Task.isCancelled { return .failure(CancellationError()) }
                            s.reader = continuation
                            return nil
                        }
                    }
                    if release > 0 { notify(.consumed(release)) }
                    if let immediate { continuation.resume(with: immediate) }
                }
            } onCancel: {
                let reader = state.withLock { s in
                    defer { s.reader = nil }
                    return s.reader
                }
                reader?.resume(throwing: CancellationError())
            }
        }
    }
}

// MARK: - Outbound

extension StreamBridge {
    /// Task side: appends framed bytes without suspending. When it returns true the buffer is over its high
    /// watermark and the writer must ``waitForOutboundRoom()`` before it writes again.
    ///
    /// Kept synchronous so that a message written while there is room costs no suspension point and no
    /// executor check: ``MessageWriter`` awaits only when it has to wait.
    /// - Throws: ``RPCError`` when the stream can no longer send.
    func append(_ append: (inout ByteBuffer) -> Void) throws -> Bool {
        let (shouldNotify, full, verdict): (Bool, Bool, ConnectionBudget.Verdict) = try state.withLock { s in
            if let failure = s.failure { throw failure }
            guard s.outboundEnd == nil else {
                throw RPCError(code: .internal, message: "write after the call finished")
            }
            let capacity = s.outbound.capacity
            append(&s.outbound)
            // The budget counts memory: the buffer's allocation, which grows by doubling.
            budget?.queued(s.outbound.capacity - capacity)
            var verdict = budget?.verdict ?? .fine
            if verdict == .serverExhausted {
                // The server's budget ends only streams whose reader is behind: a queue that has not
                // drained for `behindAfter`. A burst of writes to a reader keeping up does not count.
                let now = ContinuousClock.now
                if s.unsentSince.map({ now - $0 < Self.behindAfter }) ?? true { verdict = .fine }
            }
            if s.unsentSince == nil { s.unsentSince = .now }
            let shouldNotify = !s.outboundReadyRequested
            s.outboundReadyRequested = true
            return (shouldNotify, s.outbound.readableBytes >= limits.outboundHighWatermark, verdict)
        }
        if verdict != .fine {
            notify(.outboundOverBudget(verdict))
            if verdict == .serverExhausted {
                throw RPCError(code: .resourceExhausted, message: "the server's queued-outbound budget is spent and this reader is behind")
            }
        }
        if shouldNotify { notify(.outboundReady) }
        return full
    }

    /// Loop side, before the stream is submitted: queues a call's whole request, its one message and the
    /// half-close, without asking the loop to look (it is about to): nghttp2 then sends HEADERS, DATA and
    /// END_STREAM in one write, where a message written after the call had started cost the caller a hop back
    /// from the loop and the loop a second wake and a second write.
    func preload(_ request: PreloadedRequest) {
        state.withLock { s in
            request.append(to: &s.outbound)
            s.unsentSince = .now
            s.outboundEnd = .finished(.ok, [:])
        }
    }

    /// Task side: appends framed bytes and suspends while the buffer is over its high watermark.
    /// - Throws: ``RPCError`` when the stream can no longer send.
    func write(_ append: (inout ByteBuffer) -> Void) async throws {
        if try self.append(append) { try await waitForOutboundRoom() }
    }

    /// Task side: suspends until the peer has taken the buffer down to its low watermark.
    /// - Throws: ``RPCError`` when the stream failed with bytes still queued; `CancellationError` when cancelled.
    func waitForOutboundRoom() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = state.withLock { s in
                    if let failure = s.failure { return s.discardedUnsent ? .failure(failure) : .success(()) }
                    if s.outbound.readableBytes < limits.outboundLowWatermark { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.writer = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let writer = state.withLock { s in
                defer { s.writer = nil }
                return s.writer
            }
            writer?.resume(throwing: CancellationError())
        }
    }

    /// Task side: ends the outbound side. Ignored if it already ended or the
    /// stream failed.
    func finishOutbound(_ end: OutboundEnd) {
        let shouldNotify = state.withLock { s -> Bool in
            guard s.outboundEnd == nil, s.failure == nil else { return false }
            s.outboundEnd = end
            let shouldNotify = !s.outboundReadyRequested
            s.outboundReadyRequested = true
            return shouldNotify
        }
        if shouldNotify { notify(.outboundReady) }
    }

    /// What the loop finds when it looks at the outbound side.
    struct OutboundSnapshot {
        var bufferedBytes: Int
        var end: OutboundEnd?
    }

    /// Loop side: acknowledges an `outboundReady` request and looks at the
    /// outbound side.
    func takeOutboundRequest() -> OutboundSnapshot {
        state.withLock { s in
            s.outboundReadyRequested = false
            return OutboundSnapshot(bufferedBytes: s.outbound.readableBytes, end: s.outboundEnd)
        }
    }

    /// Loop side (data provider): copies up to `destination.count` bytes.
    /// - Returns: the bytes copied and the end if the buffer is now drained
    ///   and the outbound side has ended.
    func readOutbound(into destination: UnsafeMutableRawBufferPointer) -> (Int, OutboundEnd?) {
        let (count, end, writer): (Int, OutboundEnd?, CheckedContinuation<Void, any Error>?) =
            state.withLock { s in
                let count = min(destination.count, s.outbound.readableBytes)
                if count > 0 {
                    s.outbound.readWithUnsafeReadableBytes { source in
                        destination.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: count)
                        return count
                    }
                }
                // Drained: give the memory back (a stream that once burst does not keep its peak).
                if s.outbound.readableBytes == 0, s.outbound.capacity > 0 {
                    clearOutbound(&s)
                } else if count > 0 {
                    s.unsentSince = .now
                }
                var writer: CheckedContinuation<Void, any Error>? = nil
                if s.outbound.readableBytes < limits.outboundLowWatermark {
                    writer = s.writer
                    s.writer = nil
                }
                return (count, s.outbound.readableBytes == 0 ? s.outboundEnd : nil, writer)
            }
        writer?.resume()
        return (count, end)
    }
}

// MARK: - Failure and cancellation

extension StreamBridge {
    /// Loop side: the stream is gone or must stop. Pending reads and writes
    /// throw `error`, later ones too, and the handler's task is cancelled.
    func fail(_ error: RPCError, cancelTask: Bool) {
        let (reader, writer, task): (CheckedContinuation<InboundMessage?, any Error>?, CheckedContinuation<Void, any Error>?, TaskHandle?) =
            state.withLock { s in
                if s.failure == nil { s.failure = error }
                if s.inboundEnd == nil { s.inboundEnd = .failure(error) }
                s.inbound.removeAll()
                clearOutbound(&s)
                s.discardedUnsent = true  // A failed stream fails a write still waiting, sent or not.
                let reader = s.reader
                let writer = s.writer
                s.reader = nil
                s.writer = nil
                var task: TaskHandle? = nil
                if cancelTask { s.cancelRequested = true }
                if cancelTask, let handle = s.task, !s.cancelling {
                    s.cancelling = true
                    task = handle
                }
                return (reader, writer, task)
            }
        reader?.resume(throwing: error)
        writer?.resume(throwing: error)
        if let task {
            task.task.cancel()
            state.withLock { $0.cancelling = false }
        }
    }

    /// Loop side: the outbound side can no longer send (the stream closed
    /// after a complete response); queued inbound messages stay readable.
    func failOutbound(_ error: RPCError) {
        // A writer still waiting has bytes queued (below the low watermark it would have been resumed), so it
        // fails; one that had not started waiting when every byte left succeeds (`discardedUnsent`).
        let writer = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            if s.failure == nil { s.failure = error }
            clearOutbound(&s)
            defer { s.writer = nil }
            return s.writer
        }
        writer?.resume(throwing: error)
    }

    /// Whether the stream failed, and how.
    var failure: RPCError? { state.withLock { $0.failure } }

    /// Task side: records the running task so that ``fail(_:cancelTask:)``
    /// can cancel it. Call ``detachTask()`` before the task ends.
    func attachCurrentTask() {
        withUnsafeCurrentTask { task in
            guard let task else { return }
            let cancelledAlready = state.withLock { s -> Bool in
                s.task = TaskHandle(task: task)
                return s.cancelRequested
            }
            // The stream failed before the handler started: stop it at once.
            if cancelledAlready { task.cancel() }
        }
    }

    /// Task side: forgets the task, waiting out a cancel in flight.
    func detachTask() {
        while true {
            let done = state.withLock { s -> Bool in
                guard !s.cancelling else { return false }
                s.task = nil
                return true
            }
            if done { return }
        }
    }
}

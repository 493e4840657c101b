internal import NIOCore
import Synchronization

/// A unary call's answer as its stream ended: the one message, still encoded, and the metadata.
struct UnaryAnswer: Sendable {
    var message: InboundMessage
    var initialMetadata: Metadata
    var trailingMetadata: Metadata
}

/// Links a unary call's task to its stream on the event loop, so that cancelling the task can end the
/// stream. The task cancels at any time; the loop starts the stream, perhaps after the cancellation.
final class UnaryTicket: Sendable {
    private let state = Mutex<(streamID: Int32?, cancelled: Bool)>((nil, false))

    /// Loop side: the stream is open; false when the call was cancelled before it started.
    func started(_ streamID: Int32) -> Bool {
        state.withLock { s in
            s.streamID = streamID
            return !s.cancelled
        }
    }

    /// Marks the call cancelled; returns its stream when it has one.
    func cancel() -> Int32? {
        state.withLock { s in
            s.cancelled = true
            return s.streamID
        }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }
}

extension ClientConnectionHandler {
    static let cancelledByClient = Status(code: .cancelled, message: "call cancelled by the client")

    /// Starts a unary call whose request leaves with its headers, and resumes `continuation` once, when the
    /// stream ends: with the answer, or with the call's error. The caller's thread is handed the call once
    /// and the answer once; it decodes the answer itself, so no message is decoded on the I/O thread.
    func startUnary(
        path: String, options: CallOptions, request: PreloadedRequest, ticket: UnaryTicket,
        _ continuation: CheckedContinuation<UnaryAnswer, any Error>
    ) {
        guard !ticket.isCancelled else {
            continuation.resume(throwing: RPCError(status: Self.cancelledByClient)!)
            return
        }
        let bridge: StreamBridge
        let head: ResponseHead
        let streamID: Int32
        do {
            (bridge, head, streamID) = try startCall(
                path: path, metadata: options.metadata, timeout: options.timeout, compression: options.compression,
                request: request)
        } catch {
            continuation.resume(throwing: error)
            return
        }
        streams[streamID]?.onFinish = { status, trailers in
            continuation.resume(with: Self.answer(status, trailers, bridge: bridge, head: head).mapError { $0 })
        }
        if !ticket.started(streamID) { cancel(streamID: streamID, status: Self.cancelledByClient) }
    }

    /// A unary call's outcome once its stream has ended: its one message, or its error.
    private static func answer(_ status: Status, _ trailers: Metadata, bridge: StreamBridge, head: ResponseHead)
        -> Result<UnaryAnswer, RPCError>
    {
        if let error = RPCError(status: status, metadata: trailers) { return .failure(error) }
        guard let message = bridge.nextInboundIfArrived() else {
            return .failure(RPCError(code: .internal, message: "the server sent no response message"))
        }
        guard bridge.nextInboundIfArrived() == nil else {
            return .failure(RPCError(code: .internal, message: "the server sent more than one response message"))
        }
        return .success(
            UnaryAnswer(message: message, initialMetadata: head.initialIfKnown ?? [:], trailingMetadata: trailers))
    }

    /// Ends a unary call its task gave up on (if its stream has started; else it will not start).
    func cancelUnary(_ ticket: UnaryTicket) {
        guard let streamID = ticket.cancel() else { return }
        cancel(streamID: streamID, status: Self.cancelledByClient)
    }
}

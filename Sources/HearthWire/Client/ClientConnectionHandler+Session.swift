import CNghttp2
internal import NIOCore

/// nghttp2 events for a client connection.
extension ClientConnectionHandler {
    func sessionBeginHeaders(streamID: Int32) {}

    func sessionHeader(streamID: Int32, name: String, value: String) -> Bool {
        streams[streamID]?.machine.receiveHeader(name: name, value: value)
        return true
    }

    func sessionHeadersComplete(streamID: Int32, endStream: Bool) {
        guard let stream = streams[streamID] else { return }
        switch stream.machine.receiveHeadersComplete(endStream: endStream) {
        case .initialMetadata(let metadata):
            stream.head.setInitial(metadata)
        case .finished(let status, let trailers):
            finish(stream, status: status, trailers: trailers, dropQueued: false)
            if !endStream { session.resetStream(streamID: streamID, errorCode: NGHTTP2_CANCEL.rawValue) }
        case .none:
            break
        }
    }

    func sessionData(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        guard let stream = streams[streamID] else {
            session.consume(streamID: streamID, bytes: bytes.count)
            return
        }
        switch stream.machine.receiveData(bytes) {
        case .deliver(let messages):
            session.consume(streamID: streamID, bytes: stream.bridge.deliver(messages, chunkBytes: bytes.count))
        case .fail(let status):
            session.consume(streamID: streamID, bytes: bytes.count)
            finish(stream, status: status, trailers: [:])
            session.resetStream(streamID: streamID, errorCode: NGHTTP2_CANCEL.rawValue)
        case .drop:
            session.consume(streamID: streamID, bytes: bytes.count)
        }
    }

    func sessionDataFrameComplete(streamID: Int32, endStream: Bool, padding: Int) {
        session.consume(streamID: streamID, bytes: padding)
        guard endStream, let stream = streams[streamID] else { return }
        if case .finished(let status, let trailers) = stream.machine.receiveEndStreamOnData() {
            finish(stream, status: status, trailers: trailers, dropQueued: false)
        }
    }

    func sessionStreamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        if let status = stream.machine.streamClosed(errorCode: errorCode) {
            finish(stream, status: status, trailers: [:])
        } else {
            stream.deadlineTimer?.cancel()
            stream.bridge.failOutbound(RPCError(code: .cancelled, message: "call finished"))
        }
        if !usable, streams.isEmpty { io.closeAfterFlush() }
    }

    func sessionReadData(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer) -> NGHTTP2Session.ReadResult {
        guard let stream = streams[streamID] else { return .failure }
        let (count, end) = stream.bridge.readOutbound(into: buffer)
        if end != nil { return .bytes(count, end: .endStream) }
        return count == 0 ? .deferred : .bytes(count, end: nil)
    }

    func sessionPing(ack: Bool) {
        if ack { io.pingAcknowledged() }
    }

    func sessionSettings() {
        spokeHTTP2 = true
    }

    func sessionGoAway(lastStreamID: Int32, errorCode: UInt32) {
        // Streams above lastStreamID are closed by nghttp2 with REFUSED_STREAM
        // (UNAVAILABLE); the rest finish. New calls go to a new connection.
        markUnusable()
    }
}

import CNghttp2
internal import NIOCore

/// What an ``NGHTTP2Session`` reports while it parses bytes.
///
/// Methods are called from inside `nghttp2_session_mem_recv` or
/// `nghttp2_session_mem_send`; they must not call back into the session's
/// receive or send paths. Submitting frames is allowed.
protocol NGHTTP2SessionDelegate: AnyObject {
    /// A HEADERS frame opens or continues a header block on a stream.
    func sessionBeginHeaders(streamID: Int32)
    /// One header field. Return false to drop the rest of the block's fields
    /// (the stream is then answered at ``sessionHeadersComplete``).
    func sessionHeader(streamID: Int32, name: String, value: String) -> Bool
    /// A header block is complete.
    func sessionHeadersComplete(streamID: Int32, endStream: Bool)
    /// Payload bytes of a DATA frame (a frame may arrive in several chunks).
    func sessionData(streamID: Int32, bytes: UnsafeRawBufferPointer)
    /// A DATA frame is complete; `padding` bytes of it carried no data.
    func sessionDataFrameComplete(streamID: Int32, endStream: Bool, padding: Int)
    /// The stream is closed; `errorCode` is the HTTP/2 code (0 on a clean close).
    func sessionStreamClosed(streamID: Int32, errorCode: UInt32)
    /// The data provider of `streamID` asks for up to `buffer.count` bytes.
    func sessionReadData(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer) -> NGHTTP2Session.ReadResult
    /// A PING arrived (`ack` false) or our PING was acknowledged (`ack` true).
    func sessionPing(ack: Bool)
    /// The peer sent GOAWAY.
    func sessionGoAway(lastStreamID: Int32, errorCode: UInt32)
    /// The peer's SETTINGS arrived (not an acknowledgement of ours).
    func sessionSettings()
}

extension NGHTTP2SessionDelegate {
    func sessionSettings() {}
}

/// Owns one `nghttp2_session` and turns its C callbacks and return codes into
/// Swift. No C type leaves this file's module-internal API.
///
/// Confined to one event loop; not `Sendable`.
final class NGHTTP2Session {
    enum Role { case server, client }

    /// The answer of the data provider.
    enum ReadResult {
        /// `count` bytes were written; with `end` the stream's data is done.
        case bytes(Int, end: DataEnd?)
        /// Nothing yet; call ``resumeData(streamID:)`` when there is.
        case deferred
        /// Reset the stream with INTERNAL_ERROR.
        case failure
    }

    enum DataEnd {
        /// END_STREAM on the last DATA frame (client requests).
        case endStream
        /// Trailers follow, submitted by the delegate from the read callback.
        case trailersFollow
    }

    /// An error from nghttp2.
    struct Failure: Error, CustomStringConvertible {
        var code: Int32
        var description: String { String(cString: nghttp2_strerror(code)) }
    }

    struct Options {
        var maxConcurrentStreams: UInt32
        var initialWindowSize: UInt32
        var connectionWindowSize: Int32
        var maxHeaderListSize: UInt32
        var maxFrameSize: UInt32 = 16_384
        var streamResetBurst: UInt64 = 1000
        var streamResetRate: UInt64 = 33
        var maxContinuations: Int = 8
        var maxSettings: Int = 32
        var maxOutboundAck: Int = 1000
        /// The largest header block we send (nghttp2's default: 64 KiB).
        var maxSendHeaderBlockLength: Int = 64 * 1024
    }

    private var session: OpaquePointer?
    unowned let delegate: any NGHTTP2SessionDelegate
    /// Counts this session among the server's live ones (servers only).
    private let budget: WireBudget?

    init(role: Role, options: Options, delegate: any NGHTTP2SessionDelegate, budget: WireBudget? = nil) throws {
        self.delegate = delegate
        self.budget = budget
        var callbacks: OpaquePointer?
        try Self.check(nghttp2_session_callbacks_new(&callbacks))
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(callbacks)

        var option: OpaquePointer?
        try Self.check(nghttp2_option_new(&option))
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_option_set_stream_reset_rate_limit(option, options.streamResetBurst, options.streamResetRate)
        nghttp2_option_set_max_continuations(option, options.maxContinuations)
        nghttp2_option_set_max_settings(option, options.maxSettings)
        nghttp2_option_set_max_outbound_ack(option, options.maxOutboundAck)
        nghttp2_option_set_peer_max_concurrent_streams(option, 100)
        nghttp2_option_set_max_send_header_block_length(option, options.maxSendHeaderBlockLength)

        let userData = Unmanaged.passUnretained(self).toOpaque()
        switch role {
        case .server: try Self.check(nghttp2_session_server_new2(&session, callbacks, userData, option))
        case .client: try Self.check(nghttp2_session_client_new2(&session, callbacks, userData, option))
        }
        budget?.sessionCreated()

        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: options.maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                value: options.initialWindowSize),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: options.maxHeaderListSize),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue), value: options.maxFrameSize),
        ]
        if role == .client {
            settings.append(
                nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0))
        }
        try Self.check(nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count))
        try Self.check(
            nghttp2_session_set_local_window_size(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, options.connectionWindowSize))
    }

    deinit {
        // `session` is nil only if creating it failed, and then it was never counted.
        if session != nil { budget?.sessionFreed() }
        nghttp2_session_del(session)
    }

    static func check(_ rc: Int32) throws {
        if rc < 0 { throw Failure(code: rc) }
    }
}

// MARK: - Receiving and sending bytes

extension NGHTTP2Session {
    /// Feeds received bytes; delegate methods run before this returns.
    /// - Throws: ``Failure`` when the connection must be closed (a protocol
    ///   or flood violation; nghttp2 has queued a GOAWAY to flush first).
    func receive(_ buffer: ByteBuffer) throws {
        try buffer.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress else { return }
            let n = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), raw.count)
            if n < 0 { throw Failure(code: Int32(n)) }
        }
    }

    /// Appends frames nghttp2 has queued to `buffer`, stopping once it holds
    /// `limit` bytes or nothing more is queued.
    func drainOutbound(into buffer: inout ByteBuffer, limit: Int = .max) throws {
        while buffer.readableBytes < limit {
            var pointer: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &pointer)
            if n < 0 { throw Failure(code: Int32(n)) }
            guard n > 0, let pointer else { return }
            // Copy now: the bytes are only valid until the next call.
            buffer.writeBytes(UnsafeRawBufferPointer(start: pointer, count: n))
        }
    }

    /// Whether nghttp2 has frames queued to send.
    var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    /// Whether the session still wants to read or write; false once both
    /// sides of a GOAWAY are done.
    var isAlive: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }
}

// MARK: - Submitting frames

extension NGHTTP2Session {
    /// Runs `body` with the headers as an `nghttp2_nv` array.
    ///
    /// Names and values are copied once into one temporary buffer beside the array (on the stack for the
    /// usual few hundred bytes): no heap allocation per header block, which every call makes two or three of.
    private func withNV<R>(_ headers: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) throws -> R) rethrows -> R {
        var byteCount = 1
        for (name, value) in headers { byteCount += name.utf8.count + value.utf8.count }
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount) { bytes in
            try withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(headers.count, 1)) { nva in
                var offset = 0
                for (index, (name, value)) in headers.enumerated() {
                    let nameStart = offset
                    offset = Self.copy(name, into: bytes, at: offset)
                    let valueStart = offset
                    offset = Self.copy(value, into: bytes, at: offset)
                    (nva.baseAddress! + index).initialize(
                        to: nghttp2_nv(
                            name: bytes.baseAddress! + nameStart, value: bytes.baseAddress! + valueStart,
                            namelen: valueStart - nameStart, valuelen: offset - valueStart,
                            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                }
                // nghttp2_nv is a trivial C struct: nothing to deinitialize.
                return try body(nva.baseAddress!, headers.count)
            }
        }
    }

    /// Copies `string`'s UTF-8 into `buffer` at `offset`; returns the offset after it.
    private static func copy(_ string: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        var string = string
        return string.withUTF8 { utf8 in
            guard let source = utf8.baseAddress, !utf8.isEmpty else { return offset }
            (buffer.baseAddress! + offset).update(from: source, count: utf8.count)
            return offset + utf8.count
        }
    }

    private var dataProvider: nghttp2_data_provider {
        var provider = nghttp2_data_provider()
        provider.read_callback = { session, streamID, buf, length, flags, _, userData in
            let this = Unmanaged<NGHTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
            let result = this.delegate.sessionReadData(
                streamID: streamID, into: UnsafeMutableRawBufferPointer(start: buf, count: length))
            switch result {
            case .deferred:
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            case .failure:
                return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
            case .bytes(let count, let end):
                switch end {
                case nil: break
                case .endStream: flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                case .trailersFollow:
                    flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue | NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                }
                return count
            }
        }
        return provider
    }

    /// Server: response headers, followed by DATA from the delegate when
    /// `withBody`, or ending the stream (trailers-only) when not.
    func submitResponse(streamID: Int32, headers: [(String, String)], withBody: Bool) throws {
        try withNV(headers) { nva, count in
            if withBody {
                var provider = dataProvider
                try Self.check(nghttp2_submit_response(session, streamID, nva, count, &provider))
            } else {
                try Self.check(nghttp2_submit_response(session, streamID, nva, count, nil))
            }
        }
    }

    /// Server: trailers; call from the read callback after `.trailersFollow`.
    func submitTrailers(streamID: Int32, headers: [(String, String)]) throws {
        try withNV(headers) { nva, count in
            try Self.check(nghttp2_submit_trailer(session, streamID, nva, count))
        }
    }

    /// Client: a request whose body the delegate's read callback provides.
    /// - Returns: the new stream's id.
    func submitRequest(headers: [(String, String)]) throws -> Int32 {
        try withNV(headers) { nva, count in
            var provider = dataProvider
            let id = nghttp2_submit_request(session, nil, nva, count, &provider, nil)
            try Self.check(id)
            return id
        }
    }

    /// Asks the data provider of `streamID` again after it deferred.
    func resumeData(streamID: Int32) {
        // Fails only if the stream is gone or not deferred; both are harmless.
        _ = nghttp2_session_resume_data(session, streamID)
    }

    /// Resets a stream.
    func resetStream(streamID: Int32, errorCode: UInt32) {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
    }

    /// Returns `bytes` to the stream's and the connection's flow-control
    /// windows (WINDOW_UPDATE is sent when enough has been returned).
    func consume(streamID: Int32, bytes: Int) {
        guard bytes > 0 else { return }
        _ = nghttp2_session_consume(session, streamID, bytes)
    }

    /// Sends a PING.
    func ping() {
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// First step of a graceful shutdown: GOAWAY with the maximum stream id.
    func submitShutdownNotice() {
        _ = nghttp2_submit_shutdown_notice(session)
    }

    /// GOAWAY naming the last stream that will be processed.
    func submitGoAway(errorCode: UInt32, debug: String = "") {
        let last = nghttp2_session_get_last_proc_stream_id(session)
        var bytes = Array(debug.utf8)
        _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, &bytes, bytes.count)
    }

    /// Whether the remote side of `streamID` has ended.
    func isRemoteClosed(streamID: Int32) -> Bool {
        nghttp2_session_get_stream_remote_close(session, streamID) == 1
    }
}

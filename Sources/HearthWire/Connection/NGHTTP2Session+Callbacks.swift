import CNghttp2

/// The session whose address nghttp2 passes back as `user_data`.
private func owner(_ userData: UnsafeMutableRawPointer?) -> NGHTTP2Session {
    Unmanaged<NGHTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
}

extension NGHTTP2Session {
    /// Installs the C callbacks; each forwards to the delegate of the session
    /// whose address is nghttp2's `user_data`.
    static func install(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            let hd = frame!.pointee.hd
            if hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                owner(userData).delegate.sessionBeginHeaders(streamID: hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            let hd = frame!.pointee.hd
            guard hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
            let nameString = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            let valueString = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            _ = owner(userData).delegate.sessionHeader(streamID: hd.stream_id, name: nameString, value: valueString)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            let frame = frame!.pointee
            let hd = frame.hd
            let endStream = hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            let delegate = owner(userData).delegate
            switch Int(hd.type) {
            case Int(NGHTTP2_HEADERS.rawValue):
                delegate.sessionHeadersComplete(streamID: hd.stream_id, endStream: endStream)
            case Int(NGHTTP2_DATA.rawValue):
                delegate.sessionDataFrameComplete(
                    streamID: hd.stream_id, endStream: endStream, padding: frame.data.padlen)
            case Int(NGHTTP2_PING.rawValue):
                delegate.sessionPing(ack: hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0)
            case Int(NGHTTP2_GOAWAY.rawValue):
                delegate.sessionGoAway(lastStreamID: frame.goaway.last_stream_id, errorCode: frame.goaway.error_code)
            case Int(NGHTTP2_SETTINGS.rawValue) where hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
                delegate.sessionSettings()
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) {
            _, _, streamID, data, length, userData in
            owner(userData).delegate.sessionData(
                streamID: streamID, bytes: UnsafeRawBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            // Never fail here: nghttp2 1.52 leaks the stream if this returns an error.
            owner(userData).delegate.sessionStreamClosed(streamID: streamID, errorCode: errorCode)
            return 0
        }
    }
}

internal import NIOCore

/// The request side of one server stream: header validation, message
/// framing and limits. Pure: no I/O, no clock.
///
/// ```
///   headers ──(valid)──▶ open ──(END_STREAM)──▶ inboundClosed
///      │                  │
///      └─(invalid)─┐      └─(bad frame / oversize)─┐
///                  ▼                                ▼
///               rejected ◀──────────────────────── failed
/// ```
///
/// `rejected` means we answered before dispatching (trailers-only); `failed`
/// means the call was running and must end with the returned status. Bytes
/// arriving in either state are dropped (a legitimate race with our answer).
struct ServerStreamStateMachine {
    struct Limits {
        var maxHeaderListSize: Int
        var maxReceiveMessageSize: Int
        /// Request encodings taken; any other is refused with UNIMPLEMENTED.
        var enabledEncodings: [MessageEncoding] = MessageEncoding.all
    }

    /// A validated request head.
    struct RequestHead: Equatable {
        var path: String
        var metadata: Metadata
        var timeout: GRPCTimeout?
        var authority: String?
        /// The request's `grpc-encoding` (nil: identity).
        var encoding: MessageEncoding? = nil
        /// The known encodings of the request's `grpc-accept-encoding`.
        var acceptedEncodings: [MessageEncoding] = []
        /// gRPC-Web's body format, or nil for native gRPC.
        var web: GRPCWebFormat? = nil
    }

    enum OnHeaders: Equatable {
        /// Start the call.
        case dispatch(RequestHead)
        /// Answer at once and dispatch nothing: HTTP status (200 for gRPC
        /// errors) and the gRPC status for a trailers-only response.
        case reject(httpStatus: Int, status: Status)
        /// A second header block (request trailers) ended the inbound side.
        case finishInbound
        /// End the running call with this status.
        case fail(Status)
        /// Nothing to do.
        case none
    }

    enum OnData: Equatable {
        /// Complete messages to hand to the call (maybe none yet), decompressed.
        case deliver([InboundMessage])
        /// End the running call with this status.
        case fail(Status)
        /// Dropped: the stream was already answered or failed.
        case drop
    }

    enum OnEnd: Equatable {
        case finishInbound
        case fail(Status)
        case none
    }

    private enum State {
        /// The fields gathered so far live in `fields` (not in the case, where each append would copy them).
        case receivingHeaders
        /// The text decoder is set for `application/grpc-web-text` bodies.
        case open(GRPCMessageDeframer, InboundDecoder, Base64Stream.Decoder?)
        case inboundClosed
        case rejected
        case failed
    }

    private var state: State = .receivingHeaders
    private var fields: [(String, String)] = []
    /// The header list's size so far, counted as HTTP/2 does.
    private var headerBytes = 0
    private let limits: Limits

    init(limits: Limits) {
        self.limits = limits
    }

    /// One header field. Sizes are counted as HTTP/2 does (name + value + 32)
    /// because nghttp2 does not enforce our advertised header-list limit.
    mutating func receiveHeader(name: String, value: String) {
        guard case .receivingHeaders = state, headerBytes <= limits.maxHeaderListSize else { return }
        headerBytes += name.utf8.count + value.utf8.count + 32
        if headerBytes > limits.maxHeaderListSize {
            fields = []
            return
        }
        if fields.isEmpty { fields.reserveCapacity(8) }
        fields.append((name, value))
    }

    /// The end of a header block.
    mutating func receiveHeadersComplete(endStream: Bool) -> OnHeaders {
        switch state {
        case .receivingHeaders:
            if headerBytes > limits.maxHeaderListSize {
                state = .rejected
                return .reject(
                    httpStatus: 200,
                    status: Status(
                        code: .resourceExhausted,
                        message: "header list of \(headerBytes)+ bytes exceeds the limit of \(limits.maxHeaderListSize)"))
            }
            let verdict = Self.validate(fields, enabledEncodings: limits.enabledEncodings)
            fields = []
            if case .dispatch(let head) = verdict {
                state =
                    endStream
                    ? .inboundClosed
                    : .open(
                        GRPCMessageDeframer(maxMessageSize: limits.maxReceiveMessageSize, allowsCompressed: true),
                        InboundDecoder(encoding: head.encoding), head.web == .text ? Base64Stream.Decoder() : nil)
            } else {
                state = .rejected
            }
            return verdict
        case .open(let deframer, _, _):
            // Request trailers: allowed by HTTP/2, unused by gRPC; they end the stream.
            guard endStream else { return .none }
            state = .inboundClosed
            return deframer.hasPartialMessage
                ? .fail(Self.truncated) : .finishInbound
        case .inboundClosed, .rejected, .failed:
            return .none
        }
    }

    /// Stops reading: the call was ended from our side; later bytes are dropped.
    mutating func abandon() {
        if case .rejected = state { return }
        state = .failed
    }

    /// Memory held for an incomplete message now (0 unless a message is being received).
    var partialMessageBytes: Int {
        guard case .open(let deframer, _, _) = state else { return 0 }
        return deframer.heldMemory
    }

    /// Where the message being read is held (tests: it must not move while it is appended to).
    var partialMessageAddress: UnsafeRawPointer? {
        guard case .open(let deframer, _, _) = state, deframer.hasPartialMessage else { return nil }
        return deframer.heldBytesAddress
    }

    /// DATA payload bytes.
    mutating func receiveData(_ bytes: UnsafeRawBufferPointer) -> OnData {
        guard case .open(var deframer, let decoder, var text) = state else { return .drop }
        // Out of the enum while it is written, or each append copies the message held so far (the case's
        // copy shares the buffer). Put back below, or the stream fails.
        state = .failed
        if text != nil {
            guard let decoded = text!.decode(bytes) else {
                state = .failed
                return .fail(Status(code: .internal, message: "grpc-web-text body is not base64"))
            }
            decoded.withUnsafeBytes { deframer.append($0) }
        } else {
            deframer.append(bytes)
        }
        var messages: [InboundMessage] = []
        do {
            while let frame = try deframer.nextFrame() {
                switch decoder.decode(frame, peer: "message") {
                case .message(let message): messages.append(message)
                case .fail(let status):
                    state = .failed
                    return .fail(status)
                }
            }
        } catch {
            state = .failed
            switch error {
            case .messageTooLarge(let length, let limit):
                return .fail(
                    Status(
                        code: .resourceExhausted,
                        message: "received message of \(length) bytes exceeds the limit of \(limit)"))
            case .compressedWithoutEncoding:
                return .fail(Status(code: .internal, message: "compressed message without grpc-encoding"))
            case .invalidFlag(let flag):
                return .fail(Status(code: .internal, message: "invalid message flag \(flag)"))
            }
        }
        state = .open(deframer, decoder, text)
        return .deliver(messages)
    }

    /// END_STREAM on a DATA frame.
    mutating func receiveEndStream() -> OnEnd {
        guard case .open(let deframer, _, let text) = state else { return .none }
        if deframer.hasPartialMessage || text?.isComplete == false {
            state = .failed
            return .fail(Self.truncated)
        }
        state = .inboundClosed
        return .finishInbound
    }

    private static let truncated = Status(code: .internal, message: "stream ended in the middle of a message")
}

extension ServerStreamStateMachine {
    private static func validate(_ fields: [(String, String)], enabledEncodings: [MessageEncoding]) -> OnHeaders {
        var method: String?
        var path: String?
        var contentType: String?
        var te: String?
        var timeout: String?
        var encoding: String?
        var acceptEncoding: String?
        var authority: String?
        var metadata = Metadata()
        for (name, value) in fields {
            switch name {
            case ":method": method = value
            case ":path": path = value
            case ":authority", "host": authority = value
            case "content-type": contentType = value
            case "te": te = value
            case "grpc-timeout": timeout = value
            case "grpc-encoding": encoding = value
            case "grpc-accept-encoding": acceptEncoding = value
            default:
                guard !Metadata.isReserved(name) else { continue }
                guard metadata.addWire(name: name, value: value) else {
                    return .reject(httpStatus: 200, status: Status(code: .internal, message: "metadata \(name) is not valid base64"))
                }
            }
        }
        guard method == "POST" else {
            return .reject(httpStatus: 405, status: Status(code: .internal, message: "method must be POST"))
        }
        // Plain gRPC first: it is the common case, and `application/grpc-web…` is not plain gRPC.
        let grpc = contentType.map(isGRPC(contentType:)) ?? false
        let web = grpc ? nil : contentType.flatMap(GRPCWebFormat.init(contentType:))
        guard let contentType, grpc || web != nil else {
            return .reject(
                    httpStatus: 415,
                    status: Status(code: .internal, message: "content-type \(contentType ?? "(none)") is not application/grpc"))
        }
        // gRPC-Web puts trailers in the body, so its clients (browsers) neither send nor need `te: trailers`.
        guard web != nil || te == "trailers" else {
            return .reject(httpStatus: 400, status: Status(code: .internal, message: "te must be trailers"))
        }
        var requestEncoding: MessageEncoding?
        if let encoding, encoding != "identity" {
            guard let known = MessageEncoding(name: encoding), enabledEncodings.contains(known) else {
                let supported = (["identity"] + enabledEncodings.map(\.name)).joined(separator: ", ")
                return .reject(
                    httpStatus: 200,
                    status: Status(code: .unimplemented, message: "grpc-encoding \(encoding) is not supported (supported: \(supported))"))
            }
            requestEncoding = known
        }
        var parsedTimeout: GRPCTimeout?
        if let timeout {
            guard let parsed = GRPCTimeout(header: timeout) else {
                return .reject(httpStatus: 400, status: Status(code: .internal, message: "malformed grpc-timeout \(timeout)"))
            }
            parsedTimeout = parsed
        }
        // `/service/method`: a leading slash and exactly one more.
        guard let path, path.utf8.first == UInt8(ascii: "/"), path.utf8.count(where: { $0 == UInt8(ascii: "/") }) == 2 else {
            return .reject(httpStatus: 200, status: Status(code: .unimplemented, message: "malformed path \(path ?? "(none)")"))
        }
        return .dispatch(
            RequestHead(
                path: path, metadata: metadata, timeout: parsedTimeout, authority: authority, encoding: requestEncoding,
                acceptedEncodings: acceptEncoding.map(MessageEncoding.parseAcceptHeader) ?? [], web: web))
    }

    /// `application/grpc`, optionally followed by `+format` or `;params`.
    static func isGRPC(contentType: String) -> Bool {
        let prefix = "application/grpc".utf8
        var bytes = contentType.utf8.makeIterator()
        for expected in prefix {
            // ASCII case folding: a header value is compared without allocating a lowered copy.
            guard let byte = bytes.next(), (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == expected : byte == expected
            else { return false }
        }
        guard let next = bytes.next() else { return true }
        return next == UInt8(ascii: "+") || next == UInt8(ascii: ";")
    }
}

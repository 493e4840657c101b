internal import NIOCore

/// The response side of one client stream: response headers, messages and
/// the final status. Pure: no I/O, no clock.
///
/// ```
///   awaitingHeaders ──(headers)──▶ receiving ──(trailers)──▶ finished
///         │                            │
///         └──(trailers-only)───────────┴──(reset / bad frame)──▶ finished
/// ```
///
/// A response that breaks the gRPC rules (non-200 status, wrong
/// content-type, no grpc-status) finishes with the status gRPC prescribes
/// for it; bytes after `finished` are dropped.
struct ClientStreamStateMachine {
    enum OnHeaders: Equatable {
        /// Response headers: the initial metadata.
        case initialMetadata(Metadata)
        /// The call ended with this status and trailers (or trailers-only).
        case finished(Status, Metadata)
        case none
    }

    enum OnData: Equatable {
        /// Complete messages, decompressed.
        case deliver([InboundMessage])
        /// The call failed; reset the stream and report the status.
        case fail(Status)
        case drop
    }

    private enum State {
        case awaitingHeaders
        case receiving(GRPCMessageDeframer, InboundDecoder)
        case finished
    }

    private var state: State = .awaitingHeaders
    private var fields: [(String, String)] = []
    private var headerBytes = 0
    private let maxReceiveMessageSize: Int
    private let maxHeaderListSize: Int
    private let enabledEncodings: [MessageEncoding]

    init(maxReceiveMessageSize: Int, maxHeaderListSize: Int, enabledEncodings: [MessageEncoding] = MessageEncoding.all) {
        self.maxReceiveMessageSize = maxReceiveMessageSize
        self.maxHeaderListSize = maxHeaderListSize
        self.enabledEncodings = enabledEncodings
    }

    /// Where the response message being read is held (tests: it must not move while it is appended to).
    var partialMessageAddress: UnsafeRawPointer? {
        guard case .receiving(let deframer, _) = state, deframer.hasPartialMessage else { return nil }
        return deframer.heldBytesAddress
    }

    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    mutating func receiveHeader(name: String, value: String) {
        headerBytes += name.utf8.count + value.utf8.count + 32
        guard headerBytes <= maxHeaderListSize else { return }
        fields.append((name, value))
    }

    mutating func receiveHeadersComplete(endStream: Bool) -> OnHeaders {
        defer {
            fields = []
            headerBytes = 0
        }
        if headerBytes > maxHeaderListSize {
            state = .finished
            return .finished(
                Status(code: .resourceExhausted, message: "response header list exceeds \(maxHeaderListSize) bytes"), [:])
        }
        switch state {
        case .awaitingHeaders:
            if let failure = Self.checkResponseHead(fields) {
                state = .finished
                return .finished(failure, [:])
            }
            if endStream {
                state = .finished
                let (status, trailers) = Self.parseTrailers(fields)
                return .finished(status, trailers)
            }
            let (encoding, refusal) = Self.responseEncoding(fields, enabled: enabledEncodings)
            if let refusal {
                state = .finished
                return .finished(refusal, [:])
            }
            state = .receiving(
                GRPCMessageDeframer(maxMessageSize: maxReceiveMessageSize, allowsCompressed: true),
                InboundDecoder(encoding: encoding))
            return .initialMetadata(Self.metadata(from: fields))
        case .receiving(let deframer, _):
            guard endStream else { return .none }
            state = .finished
            if deframer.hasPartialMessage {
                return .finished(Status(code: .internal, message: "response ended in the middle of a message"), [:])
            }
            let (status, trailers) = Self.parseTrailers(fields)
            return .finished(status, trailers)
        case .finished:
            return .none
        }
    }

    mutating func receiveData(_ bytes: UnsafeRawBufferPointer) -> OnData {
        guard case .receiving(var deframer, let decoder) = state else { return .drop }
        // Out of the enum while it is written: the case's copy would share the deframer's buffer, and every
        // append would copy the whole message held so far (a 256 KB snapshot response in 16 KB DATA frames
        // was copied about eight times over). Put back below, or the stream finishes.
        state = .finished
        deframer.append(bytes)
        var messages: [InboundMessage] = []
        do {
            while let frame = try deframer.nextFrame() {
                switch decoder.decode(frame, peer: "response message") {
                case .message(let message): messages.append(message)
                case .fail(let status):
                    state = .finished
                    return .fail(status)
                }
            }
        } catch {
            state = .finished
            switch error {
            case .messageTooLarge(let length, let limit):
                return .fail(
                    Status(code: .resourceExhausted, message: "response message of \(length) bytes exceeds the limit of \(limit)"))
            case .compressedWithoutEncoding:
                return .fail(Status(code: .internal, message: "compressed response without grpc-encoding"))
            case .invalidFlag(let flag):
                return .fail(Status(code: .internal, message: "invalid message flag \(flag)"))
            }
        }
        state = .receiving(deframer, decoder)
        return .deliver(messages)
    }

    /// END_STREAM on a DATA frame: gRPC requires trailers, so this is an error.
    mutating func receiveEndStreamOnData() -> OnHeaders {
        guard !isFinished else { return .none }
        state = .finished
        return .finished(Status(code: .internal, message: "response ended without trailers"), [:])
    }

    /// The stream closed; returns a status if the call had not finished.
    mutating func streamClosed(errorCode: UInt32) -> Status? {
        guard !isFinished else { return nil }
        state = .finished
        if errorCode == 0 {
            return Status(code: .internal, message: "stream closed without a status")
        }
        return Status(code: HTTP2ErrorCode.status(for: errorCode), message: "stream reset (HTTP/2 error \(errorCode))")
    }
}

extension ClientStreamStateMachine {
    /// The status for a response head that is not a gRPC response, or nil.
    static func checkResponseHead(_ fields: [(String, String)]) -> Status? {
        let httpStatus = fields.first { $0.0 == ":status" }?.1
        guard httpStatus == "200" else {
            let code: Status.Code =
                switch httpStatus {
                case "400": .internal
                case "401": .unauthenticated
                case "403": .permissionDenied
                case "404": .unimplemented
                case "429", "502", "503", "504": .unavailable
                default: .unknown
                }
            return Status(code: code, message: "HTTP status \(httpStatus ?? "(none)")")
        }
        let contentType = fields.first { $0.0 == "content-type" }?.1
        guard let contentType, ServerStreamStateMachine.isGRPC(contentType: contentType) else {
            return Status(code: .unknown, message: "response content-type \(contentType ?? "(none)") is not gRPC")
        }
        return nil
    }

    /// The response's `grpc-encoding`: nil for none or identity, INTERNAL for one we do not take.
    static func responseEncoding(
        _ fields: [(String, String)], enabled: [MessageEncoding]
    ) -> (encoding: MessageEncoding?, refusal: Status?) {
        guard let name = fields.first(where: { $0.0 == "grpc-encoding" })?.1, name != "identity" else { return (nil, nil) }
        guard let encoding = MessageEncoding(name: name), enabled.contains(encoding) else {
            return (nil, Status(code: .internal, message: "response grpc-encoding \(name) is not supported"))
        }
        return (encoding, nil)
    }

    static func parseTrailers(_ fields: [(String, String)]) -> (Status, Metadata) {
        var code: Status.Code?
        var message = ""
        for (name, value) in fields {
            if name == "grpc-status" { code = Int(value).map(Status.Code.init(rawValue:)) }
            if name == "grpc-message" { message = PercentEncoding.decode(value) }
        }
        guard let code else {
            return (Status(code: .internal, message: "trailers without a valid grpc-status"), metadata(from: fields))
        }
        return (Status(code: code, message: message), metadata(from: fields))
    }

    static func metadata(from fields: [(String, String)]) -> Metadata {
        var metadata = Metadata()
        for (name, value) in fields where !Metadata.isReserved(name) {
            _ = metadata.addWire(name: name, value: value)
        }
        return metadata
    }
}

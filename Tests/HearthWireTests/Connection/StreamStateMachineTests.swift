import NIOCore
import Testing

@testable import HearthWire

@Suite("Server stream state machine")
struct ServerStreamStateMachineTests {
    private let limits = ServerStreamStateMachine.Limits(maxHeaderListSize: 8192, maxReceiveMessageSize: 16)
    private let goodHead: [(String, String)] = [
        (":method", "POST"), (":scheme", "http"), (":path", "/pkg.Svc/Do"), (":authority", "h"),
        ("content-type", "application/grpc+proto"), ("te", "trailers"), ("grpc-timeout", "5S"),
        ("x-user", "alice"), ("x-blob-bin", "AQI"), ("user-agent", "test"),
    ]

    private func machine(receiving fields: [(String, String)]) -> ServerStreamStateMachine {
        var machine = ServerStreamStateMachine(limits: limits)
        for (name, value) in fields { machine.receiveHeader(name: name, value: value) }
        return machine
    }

    private func send(_ bytes: [UInt8], to machine: inout ServerStreamStateMachine) -> ServerStreamStateMachine.OnData {
        bytes.withUnsafeBytes { machine.receiveData($0) }
    }

    @Test("a valid head dispatches with metadata and timeout, reserved headers removed")
    func dispatch() {
        var machine = machine(receiving: goodHead)
        guard case .dispatch(let head) = machine.receiveHeadersComplete(endStream: false) else {
            Issue.record("expected dispatch")
            return
        }
        #expect(head.path == "/pkg.Svc/Do")
        #expect(head.timeout == GRPCTimeout(nanoseconds: 5_000_000_000))
        #expect(head.metadata.count == 2)
        #expect(head.metadata.string(for: "x-user") == "alice")
        #expect(head.metadata["x-blob-bin"] == .binary([1, 2]))
    }

    @Test("a compressed message is delivered as it travelled, for its reader to inflate; its head names the encodings")
    func compressedDeliveredAsSent() throws {
        var machine = machine(receiving: goodHead + [("grpc-encoding", "gzip"), ("grpc-accept-encoding", "identity,deflate")])
        guard case .dispatch(let head) = machine.receiveHeadersComplete(endStream: false) else {
            Issue.record("expected dispatch")
            return
        }
        #expect(head.encoding == .gzip && head.acceptedEncodings == [.deflate])
        // 64 KiB of zeros, compressed: far over the 16-byte limit once inflated, but not as it travels.
        let packed = try Zlib.compress([UInt8](repeating: 0, count: 64 * 1024), encoding: .gzip)
        var framed = ByteBuffer()
        GRPCMessageFramer.append(packed, compressed: true, to: &framed)
        // The limit holds the prefix's length (the bytes as sent) and, when read, the inflated size.
        var roomy = ServerStreamStateMachine(
            limits: .init(maxHeaderListSize: 8192, maxReceiveMessageSize: packed.count, enabledEncodings: [.gzip]))
        for (name, value) in goodHead + [("grpc-encoding", "gzip")] { roomy.receiveHeader(name: name, value: value) }
        _ = roomy.receiveHeadersComplete(endStream: false)
        guard case .deliver(let messages) = send(Array(framed.readableBytesView), to: &roomy) else {
            Issue.record("deliver")
            return
        }
        #expect(messages == [InboundMessage(ByteBuffer(bytes: packed), encoding: .gzip)])
        #expect(throws: RPCError.self) { _ = try messages[0].payload(limit: 1024) }
        #expect(try messages[0].payload(limit: 64 * 1024).readableBytes == 64 * 1024)
    }

    @Test("an encoding the server does not enable is refused with UNIMPLEMENTED")
    func disabledEncoding() {
        var machine = ServerStreamStateMachine(
            limits: .init(maxHeaderListSize: 8192, maxReceiveMessageSize: 16, enabledEncodings: [.gzip]))
        for (name, value) in goodHead + [("grpc-encoding", "deflate")] { machine.receiveHeader(name: name, value: value) }
        guard case .reject(200, let status) = machine.receiveHeadersComplete(endStream: false) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(status.code == .unimplemented)
    }

    @Test("messages flow, then END_STREAM finishes the inbound side")
    func messagesThenEnd() {
        var machine = machine(receiving: goodHead)
        _ = machine.receiveHeadersComplete(endStream: false)
        guard case .deliver(let first) = send([0, 0, 0, 0, 2, 7], to: &machine) else {
            Issue.record("deliver")
            return
        }
        #expect(first.isEmpty)
        guard case .deliver(let second) = send([8, 0, 0, 0, 0, 0], to: &machine) else {
            Issue.record("deliver")
            return
        }
        #expect(second.map { Array($0.bytes.readableBytesView) } == [[7, 8], []])
        #expect(machine.receiveEndStream() == .finishInbound)
        #expect(send([0], to: &machine) == .drop)
    }

    @Test("a large message arriving in 16 KB frames is written into one buffer, not copied per frame")
    func largeMessageNotCopiedPerFrame() {
        var machine = ServerStreamStateMachine(limits: .init(maxHeaderListSize: 8192, maxReceiveMessageSize: 1 << 20))
        for (name, value) in goodHead { machine.receiveHeader(name: name, value: value) }
        _ = machine.receiveHeadersComplete(endStream: false)
        expectHeldInOneBuffer(held: { machine.partialMessageAddress }) {
            if case .deliver(let messages) = machine.receiveData($0) { return messages }
            return []
        }
    }

    @Test("END_STREAM inside a message fails the call with INTERNAL")
    func truncated() {
        var machine = machine(receiving: goodHead)
        _ = machine.receiveHeadersComplete(endStream: false)
        _ = send([0, 0, 0, 0, 3, 1], to: &machine)
        guard case .fail(let status) = machine.receiveEndStream() else {
            Issue.record("expected fail")
            return
        }
        #expect(status.code == .internal)
    }

    @Test("an oversized message fails the call, and later bytes are dropped")
    func oversized() {
        var machine = machine(receiving: goodHead)
        _ = machine.receiveHeadersComplete(endStream: false)
        guard case .fail(let status) = send([0, 0, 0, 0, 17], to: &machine) else {
            Issue.record("expected fail")
            return
        }
        #expect(status.code == .resourceExhausted)
        #expect(send([1, 2, 3], to: &machine) == .drop)
        #expect(machine.receiveEndStream() == .none)
    }

    @Test("a header list over the limit is answered RESOURCE_EXHAUSTED, counted as HTTP/2 counts")
    func headerListSize() {
        var small = ServerStreamStateMachine(limits: .init(maxHeaderListSize: 100, maxReceiveMessageSize: 16))
        // 32 + 5 + 60 = 97 bytes fits; one more field does not.
        small.receiveHeader(name: "x-abc", value: String(repeating: "v", count: 60))
        small.receiveHeader(name: "x", value: "")
        guard case .reject(_, let status) = small.receiveHeadersComplete(endStream: true) else {
            Issue.record("expected reject")
            return
        }
        #expect(status.code == .resourceExhausted)
    }

    @Test("request trailers end the inbound side")
    func requestTrailers() {
        var machine = machine(receiving: goodHead)
        _ = machine.receiveHeadersComplete(endStream: false)
        #expect(machine.receiveHeadersComplete(endStream: true) == .finishInbound)
    }

    @Test("a head ending the stream dispatches with the inbound side already closed")
    func headersOnly() {
        var machine = machine(receiving: goodHead)
        guard case .dispatch = machine.receiveHeadersComplete(endStream: true) else {
            Issue.record("dispatch")
            return
        }
        #expect(send([0, 0, 0, 0, 0], to: &machine) == .drop)
    }

    @Test("paths", arguments: [
        ("/pkg.Svc/Do", true), ("//Do", true), ("/pkg.Svc/", true), ("/pkg.Svc/Do/more", false), ("pkg.Svc/Do", false),
        ("/pkg.Svc", false), ("/", false), ("", false),
    ])
    func paths(path: String, dispatched: Bool) {
        var machine = machine(receiving: goodHead.map { $0.0 == ":path" ? ($0.0, path) : $0 })
        switch machine.receiveHeadersComplete(endStream: false) {
        case .dispatch(let head): #expect(dispatched && head.path == path)
        case .reject(let httpStatus, let status):
            #expect(!dispatched)
            #expect(httpStatus == 200 && status.code == .unimplemented)
        default: Issue.record("expected dispatch or reject")
        }
    }

    @Test("content types", arguments: [
        ("application/grpc", true), ("application/grpc+proto", true), ("application/grpc;charset=utf-8", true),
        ("APPLICATION/GRPC", true), ("Application/gRPC+proto", true), ("application/grpcx", false),
        ("application/json", false), ("", false), ("application/grp", false), ("application/grpc-web", false),
        // Case folding is for letters only: 0x0F | 0x20 is "/", yet it is not "/".
        ("application\u{0F}grpc", false),
    ])
    func contentTypes(value: String, accepted: Bool) {
        #expect(ServerStreamStateMachine.isGRPC(contentType: value) == accepted)
    }
}

@Suite("Client stream state machine")
struct ClientStreamStateMachineTests {
    private func machine() -> ClientStreamStateMachine {
        ClientStreamStateMachine(maxReceiveMessageSize: 16, maxHeaderListSize: 8192)
    }

    private func headers(_ m: inout ClientStreamStateMachine, _ fields: [(String, String)], end: Bool) -> ClientStreamStateMachine.OnHeaders {
        for (name, value) in fields { m.receiveHeader(name: name, value: value) }
        return m.receiveHeadersComplete(endStream: end)
    }

    @Test("headers, messages, trailers")
    func normal() {
        var m = machine()
        #expect(headers(&m, [(":status", "200"), ("content-type", "application/grpc"), ("x-a", "1")], end: false) == .initialMetadata(["x-a": .string("1")]))
        guard case .deliver(let messages) = ([0, 0, 0, 0, 1, 5] as [UInt8]).withUnsafeBytes({ m.receiveData($0) }) else {
            Issue.record("deliver")
            return
        }
        #expect(messages.count == 1)
        #expect(headers(&m, [("grpc-status", "0"), ("x-t", "2")], end: true) == .finished(.ok, ["x-t": .string("2")]))
        #expect(m.streamClosed(errorCode: 0) == nil)
    }

    @Test("trailers-only with a percent-encoded message")
    func trailersOnly() {
        var m = machine()
        let result = headers(&m, [(":status", "200"), ("content-type", "application/grpc"), ("grpc-status", "5"), ("grpc-message", "no%20such%20room")], end: true)
        #expect(result == .finished(Status(code: .notFound, message: "no such room"), [:]))
    }

    @Test("HTTP statuses map to gRPC codes", arguments: [
        ("400", Status.Code.internal), ("401", .unauthenticated), ("403", .permissionDenied), ("404", .unimplemented),
        ("429", .unavailable), ("502", .unavailable), ("503", .unavailable), ("504", .unavailable), ("500", .unknown),
    ])
    func httpStatus(status: String, code: Status.Code) {
        var m = machine()
        guard case .finished(let result, _) = headers(&m, [(":status", status)], end: true) else {
            Issue.record("finished")
            return
        }
        #expect(result.code == code)
    }

    @Test("a response that is not gRPC, or lacks grpc-status, fails")
    func malformed() {
        var m = machine()
        guard case .finished(let a, _) = headers(&m, [(":status", "200"), ("content-type", "text/html")], end: true) else {
            Issue.record("finished")
            return
        }
        #expect(a.code == .unknown)
        var n = machine()
        guard case .finished(let b, _) = headers(&n, [(":status", "200"), ("content-type", "application/grpc")], end: true) else {
            Issue.record("finished")
            return
        }
        #expect(b.code == .internal)
    }

    @Test("resets map to statuses as gRPC specifies", arguments: [
        (UInt32(7), Status.Code.unavailable), (8, .cancelled), (11, .resourceExhausted), (12, .permissionDenied), (2, .internal),
    ])
    func resets(code: UInt32, expected: Status.Code) {
        var m = machine()
        #expect(m.streamClosed(errorCode: code)?.code == expected)
    }

    @Test("a large response arriving in 16 KB frames is written into one buffer, not copied per frame")
    func largeResponseNotCopiedPerFrame() {
        var m = ClientStreamStateMachine(maxReceiveMessageSize: 1 << 20, maxHeaderListSize: 8192)
        _ = headers(&m, [(":status", "200"), ("content-type", "application/grpc")], end: false)
        expectHeldInOneBuffer(held: { m.partialMessageAddress }) {
            if case .deliver(let messages) = m.receiveData($0) { return messages }
            return []
        }
    }

    @Test("an oversized response message fails with RESOURCE_EXHAUSTED")
    func oversized() {
        var m = machine()
        _ = headers(&m, [(":status", "200"), ("content-type", "application/grpc")], end: false)
        guard case .fail(let status) = ([0, 0, 0, 1, 0] as [UInt8]).withUnsafeBytes({ m.receiveData($0) }) else {
            Issue.record("fail")
            return
        }
        #expect(status.code == .resourceExhausted)
    }
}

/// `body` as one gRPC message: flag 0, big-endian length, bytes.
private func largeMessage(_ body: [UInt8]) -> [UInt8] {
    var framed = ByteBuffer()
    GRPCMessageFramer.append(body, compressed: false, to: &framed)
    return Array(framed.readableBytesView)
}

/// Feeds a 200 KB message in 16 KB DATA payloads through `receive`, and checks that it arrives whole and
/// that, while it arrived, it was held in one buffer: sized once its prefix is read (after the first frame),
/// so it moves once at most, not once per frame.
private func expectHeldInOneBuffer(
    held: () -> UnsafeRawPointer?, receive: (UnsafeRawBufferPointer) -> [InboundMessage],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let bytes = largeMessage(body)
    var messages: [InboundMessage] = []
    var addresses: [UnsafeRawPointer] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + 16_384, bytes.count)
        messages += bytes[offset..<end].withUnsafeBytes { receive($0) }
        if let address = held(), addresses.last != address { addresses.append(address) }
        offset = end
    }
    #expect(!addresses.isEmpty, "the partial message was seen held", sourceLocation: sourceLocation)
    #expect(addresses.count <= 2, "the message moved \(addresses.count - 1) times while it arrived", sourceLocation: sourceLocation)
    #expect(messages.map { Array($0.bytes.readableBytesView) } == [body], sourceLocation: sourceLocation)
}

public import HearthWire
import SwiftProtobuf

/// `grpc.testing.TestService` on HearthWire: the server side of gRPC's interop cases
/// (`doc/interop-test-descriptions.md` in grpc/grpc): EmptyCall, UnaryCall, StreamingOutputCall,
/// StreamingInputCall, FullDuplexCall and HalfDuplexCall with the features Echo Status, Echo Metadata,
/// CompressedRequest, CompressedResponse and `interval_us`. `UnimplementedCall` is left out on purpose.
///
/// ```swift
/// try await withWireServer(services: [InteropTestService()]) { server, client in … }
/// ```
public struct InteropTestService: WireService {
    public init() {}

    public func register(into router: inout ServiceRouter) {
        router.registerUnary(InteropTesting.emptyCall) { _, context in
            Self.echoMetadata(context)
            return Grpc_Testing_Empty()
        }
        // Unary, read through the general path: CompressedRequest needs the request's compressed flag.
        router.registerBidirectional(InteropTesting.unaryCall) { requests, responses, context in
            Self.echoMetadata(context)
            let received = try await Self.single(requests)
            let request = received.message
            try Self.checkCompression(expected: request.hasExpectCompressed && request.expectCompressed.value, received)
            if request.hasResponseStatus, request.responseStatus.code != 0 { throw Self.error(request.responseStatus) }
            let compress = request.hasResponseCompressed && request.responseCompressed.value
            if compress { Self.enableCompression(context) }
            try await responses.write(.with { $0.payload = InteropTesting.payload(Int(request.responseSize)) }, compressed: compress)
        }
        router.registerServerStreaming(InteropTesting.streamingOutputCall) { request, responses, context in
            Self.echoMetadata(context)
            try await Self.respond(to: request, with: responses, context: context)
        }
        router.registerBidirectional(InteropTesting.streamingInputCall) { requests, responses, context in
            Self.echoMetadata(context)
            var iterator = requests.makeAsyncIterator()
            var total = 0
            while let received = try await iterator.nextReceived() {
                let request = received.message
                try Self.checkCompression(expected: request.hasExpectCompressed && request.expectCompressed.value, received)
                total += request.payload.body.count
            }
            try await responses.write(.with { $0.aggregatedPayloadSize = Int32(total) })
        }
        router.registerBidirectional(InteropTesting.fullDuplexCall) { requests, responses, context in
            Self.echoMetadata(context)
            for try await request in requests {
                try await Self.respond(to: request, with: responses, context: context)
            }
        }
        router.registerBidirectional(InteropTesting.halfDuplexCall) { requests, responses, context in
            Self.echoMetadata(context)
            var all: [Grpc_Testing_StreamingOutputCallRequest] = []
            for try await request in requests { all.append(request) }
            for request in all { try await Self.respond(to: request, with: responses, context: context) }
        }
    }

    /// One response per `response_parameters` entry (after its `interval_us`), compressed as it asks; then
    /// the requested status, if any.
    private static func respond(
        to request: Grpc_Testing_StreamingOutputCallRequest,
        with responses: MessageWriter<Grpc_Testing_StreamingOutputCallResponse>, context: ServerContext
    ) async throws {
        if request.hasResponseStatus, request.responseStatus.code != 0 { throw error(request.responseStatus) }
        if request.responseParameters.contains(where: { $0.hasCompressed && $0.compressed.value }) {
            enableCompression(context)
        }
        for parameters in request.responseParameters {
            if parameters.intervalUs > 0 { try await Task.sleep(for: .microseconds(Int(parameters.intervalUs))) }
            try await responses.write(
                .with { $0.payload = InteropTesting.payload(Int(parameters.size)) },
                compressed: parameters.hasCompressed && parameters.compressed.value)
        }
    }

    /// Echo Metadata: the initial key back in the headers, the trailing one in the trailers.
    private static func echoMetadata(_ context: ServerContext) {
        for (key, value) in context.requestMetadata {
            if key == InteropTesting.echoInitialKey {
                var initial = context.initialMetadata
                initial.append((key, value))
                context.initialMetadata = initial
            } else if key == InteropTesting.echoTrailingKey {
                var trailing = context.trailingMetadata
                trailing.append((key, value))
                context.trailingMetadata = trailing
            }
        }
    }

    /// CompressedResponse: the request's own encoding if the client takes it, else any it takes.
    private static func enableCompression(_ context: ServerContext) {
        if context.responseEncoding != nil { return }
        if let encoding = context.requestEncoding, context.setResponseEncoding(encoding) { return }
        if let encoding = context.acceptedResponseEncodings.first { context.setResponseEncoding(encoding) }
    }

    /// CompressedRequest: a message that should have come compressed and did not fails the call.
    private static func checkCompression<Message>(expected: Bool, _ received: ReceivedMessage<Message>) throws {
        if expected, !received.compressed {
            throw RPCError(code: .invalidArgument, message: "expected a compressed request message")
        }
    }

    private static func error(_ status: Grpc_Testing_EchoStatus) -> RPCError {
        RPCError(code: Status.Code(rawValue: Int(status.code)), message: status.message)
    }

    private static func single<Message>(_ requests: RequestStream<Message>) async throws -> ReceivedMessage<Message> {
        var iterator = requests.makeAsyncIterator()
        guard let first = try await iterator.nextReceived() else {
            throw RPCError(code: .internal, message: "expected one request message, got none")
        }
        guard try await iterator.nextReceived() == nil else {
            throw RPCError(code: .internal, message: "expected one request message, got more")
        }
        return first
    }
}

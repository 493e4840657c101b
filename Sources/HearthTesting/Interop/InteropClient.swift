public import HearthWire
import Foundation
import SwiftProtobuf

/// The client side of gRPC's interop cases on ``WireClient``: each case makes the calls its description
/// names and checks everything it asks, throwing ``InteropCaseFailure`` (or the call's ``RPCError``) when a
/// check fails.
///
/// ```swift
/// let cases = InteropClient(client: client)
/// for testCase in InteropCase.allCases { try await cases.run(testCase) }
/// ```
public struct InteropClient: Sendable {
    /// The client the calls go through.
    public let client: WireClient
    /// Whether the server implements the CompressedRequest feature (rejects an uncompressed message that
    /// says it should have been compressed). The compression cases' probe call asks exactly this: with
    /// false the probe must succeed instead (grpcio's server cannot see a message's compressed flag).
    public var serverChecksCompressedRequests: Bool

    public init(client: WireClient, serverChecksCompressedRequests: Bool = true) {
        self.client = client
        self.serverChecksCompressedRequests = serverChecksCompressedRequests
    }

    /// Runs one case.
    /// - Throws: ``InteropCaseFailure`` for a failed check; ``RPCError`` for a call that failed unexpectedly.
    public func run(_ testCase: InteropCase) async throws {
        switch testCase {
        case .emptyUnary: try await emptyUnary()
        case .largeUnary: try await largeUnary()
        case .clientCompressedUnary: try await clientCompressedUnary()
        case .serverCompressedUnary: try await serverCompressedUnary()
        case .clientStreaming: try await clientStreaming()
        case .clientCompressedStreaming: try await clientCompressedStreaming()
        case .serverStreaming: try await serverStreaming()
        case .serverCompressedStreaming: try await serverCompressedStreaming()
        case .pingPong: try await pingPong()
        case .emptyStream: try await emptyStream()
        case .customMetadata: try await customMetadata()
        case .statusCodeAndMessage: try await statusCodeAndMessage()
        case .specialStatusMessage: try await specialStatusMessage()
        case .unimplementedMethod: try await unimplemented(InteropTesting.unimplementedCall, .unimplementedMethod)
        case .unimplementedService:
            try await unimplemented(InteropTesting.unimplementedServiceCall, .unimplementedService)
        case .cancelAfterBegin: try await cancelAfterBegin()
        case .cancelAfterFirstResponse: try await cancelAfterFirstResponse()
        case .timeoutOnSleepingServer: try await timeoutOnSleepingServer()
        }
    }

    func check(_ condition: Bool, _ testCase: InteropCase, _ message: @autoclosure () -> String) throws {
        if !condition { throw InteropCaseFailure(testCase, message()) }
    }

    /// Checks a payload: `size` bytes, all zero.
    func checkPayload(_ payload: Grpc_Testing_Payload, size: Int, _ testCase: InteropCase) throws {
        try check(payload.body.count == size, testCase, "payload of \(payload.body.count) bytes, expected \(size)")
        try check(!payload.body.contains { $0 != 0 }, testCase, "payload bytes are not all zero")
    }

    /// The error a call must fail with.
    func expectError(
        _ code: Status.Code, _ testCase: InteropCase, _ body: () async throws -> Void
    ) async throws -> RPCError {
        do {
            try await body()
        } catch let error as RPCError {
            try check(error.code == code, testCase, "status \(error), expected \(code)")
            return error
        }
        throw InteropCaseFailure(testCase, "the call succeeded, expected \(code)")
    }

    static let largeRequest = Grpc_Testing_SimpleRequest.with {
        $0.responseSize = 314_159
        $0.payload = InteropTesting.payload(271_828)
    }

    func emptyUnary() async throws {
        let response = try await client.unary(InteropTesting.emptyCall, request: Grpc_Testing_Empty())
        try check(response == Grpc_Testing_Empty(), .emptyUnary, "response is not Empty")
    }

    func largeUnary() async throws {
        let response = try await client.unary(InteropTesting.unaryCall, request: Self.largeRequest)
        try checkPayload(response.payload, size: 314_159, .largeUnary)
    }

    func clientCompressedUnary() async throws {
        var request = Self.largeRequest
        request.expectCompressed = .with { $0.value = true }
        // The probe: uncompressed although it says compressed.
        if serverChecksCompressedRequests {
            _ = try await expectError(.invalidArgument, .clientCompressedUnary) {
                _ = try await client.unary(InteropTesting.unaryCall, request: request)
            }
        } else {
            _ = try await client.unary(InteropTesting.unaryCall, request: request)
        }
        for encoding in MessageEncoding.all {
            let compressed = try await client.unary(
                InteropTesting.unaryCall, request: request, options: CallOptions(compression: encoding))
            try checkPayload(compressed.payload, size: 314_159, .clientCompressedUnary)
        }
        request.expectCompressed = .with { $0.value = false }
        let plain = try await client.unary(InteropTesting.unaryCall, request: request)
        try checkPayload(plain.payload, size: 314_159, .clientCompressedUnary)
    }

    func serverCompressedUnary() async throws {
        for compressed in [true, false] {
            var request = Self.largeRequest
            request.responseCompressed = .with { $0.value = compressed }
            let received = try await client.withCall(InteropTesting.unaryCall) { call in
                try await call.write(request)
                call.finishRequests()
                var responses = call.responses.makeAsyncIterator()
                guard let first = try await responses.nextReceived() else {
                    throw InteropCaseFailure(.serverCompressedUnary, "no response")
                }
                try check(try await responses.next() == nil, .serverCompressedUnary, "more than one response")
                return first
            }
            try check(
                received.compressed == compressed, .serverCompressedUnary,
                "response compressed flag \(received.compressed), expected \(compressed)")
            try checkPayload(received.message.payload, size: 314_159, .serverCompressedUnary)
        }
    }

    func unimplemented(_ method: MethodDescriptor<Grpc_Testing_Empty, Grpc_Testing_Empty>, _ testCase: InteropCase) async throws {
        _ = try await expectError(.unimplemented, testCase) {
            _ = try await client.unary(method, request: Grpc_Testing_Empty())
        }
    }
}

/// The plaintext cases of gRPC's interop test descriptions (`doc/interop-test-descriptions.md` in
/// grpc/grpc) that ``InteropClient`` runs; the raw value is the case's name there.
public enum InteropCase: String, CaseIterable, Sendable {
    case emptyUnary = "empty_unary"
    case largeUnary = "large_unary"
    case clientCompressedUnary = "client_compressed_unary"
    case serverCompressedUnary = "server_compressed_unary"
    case clientStreaming = "client_streaming"
    case clientCompressedStreaming = "client_compressed_streaming"
    case serverStreaming = "server_streaming"
    case serverCompressedStreaming = "server_compressed_streaming"
    case pingPong = "ping_pong"
    case emptyStream = "empty_stream"
    case customMetadata = "custom_metadata"
    case statusCodeAndMessage = "status_code_and_message"
    case specialStatusMessage = "special_status_message"
    case unimplementedMethod = "unimplemented_method"
    case unimplementedService = "unimplemented_service"
    case cancelAfterBegin = "cancel_after_begin"
    case cancelAfterFirstResponse = "cancel_after_first_response"
    case timeoutOnSleepingServer = "timeout_on_sleeping_server"
}

/// A case whose check failed: which case and what it found.
public struct InteropCaseFailure: Error, Sendable, CustomStringConvertible {
    /// The case.
    public var testCase: InteropCase
    /// What was expected and what came.
    public var message: String

    public init(_ testCase: InteropCase, _ message: String) {
        self.testCase = testCase
        self.message = message
    }

    public var description: String { "\(testCase.rawValue): \(message)" }
}

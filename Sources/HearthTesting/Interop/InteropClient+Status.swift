import HearthWire
import Foundation
import SwiftProtobuf

extension InteropClient {
    static let echoMetadata: Metadata = {
        var metadata = Metadata()
        metadata.add(InteropTesting.echoInitialKey, "test_initial_metadata_value")
        metadata.add(InteropTesting.echoTrailingKey, binary: [0xAB, 0xAB, 0xAB])
        return metadata
    }()

    func checkEchoed(initial: Metadata, trailing: Metadata, _ step: String) throws {
        try check(
            initial.string(for: InteropTesting.echoInitialKey) == "test_initial_metadata_value", .customMetadata,
            "\(step): initial metadata \(initial), expected \(InteropTesting.echoInitialKey)")
        try check(
            trailing[InteropTesting.echoTrailingKey] == .binary([0xAB, 0xAB, 0xAB]), .customMetadata,
            "\(step): trailing metadata \(trailing), expected \(InteropTesting.echoTrailingKey) 0xababab")
    }

    func customMetadata() async throws {
        let options = CallOptions(metadata: Self.echoMetadata)
        let unary = try await client.unaryWithMetadata(InteropTesting.unaryCall, request: Self.largeRequest, options: options)
        try checkPayload(unary.message.payload, size: 314_159, .customMetadata)
        try checkEchoed(initial: unary.initialMetadata, trailing: unary.trailingMetadata, "UnaryCall")

        try await client.bidirectional(InteropTesting.fullDuplexCall, options: options) { call in
            try await call.write(Self.outputRequest(sizes: [314_159], payload: 271_828))
            call.finishRequests()
            var count = 0
            for try await response in call.responses {
                try checkPayload(response.payload, size: 314_159, .customMetadata)
                count += 1
            }
            try check(count == 1, .customMetadata, "FullDuplexCall: \(count) responses, expected 1")
            let initial = try await call.initialMetadata()
            let (status, trailing) = await call.status()
            try check(status.code == .ok, .customMetadata, "FullDuplexCall: status \(status)")
            try checkEchoed(initial: initial, trailing: trailing, "FullDuplexCall")
        }
    }

    func statusCodeAndMessage() async throws {
        try await echoStatus(message: "test status message", .statusCodeAndMessage, fullDuplex: true)
    }

    func specialStatusMessage() async throws {
        try await echoStatus(
            message: "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n", .specialStatusMessage,
            fullDuplex: false)
    }

    private func echoStatus(message: String, _ testCase: InteropCase, fullDuplex: Bool) async throws {
        let status = Grpc_Testing_EchoStatus.with {
            $0.code = 2
            $0.message = message
        }
        let unary = try await expectError(.unknown, testCase) {
            _ = try await client.unary(InteropTesting.unaryCall, request: .with { $0.responseStatus = status })
        }
        try check(unary.message == message, testCase, "UnaryCall: message \(unary.message.debugDescription)")
        guard fullDuplex else { return }
        let duplex = try await expectError(.unknown, testCase) {
            try await client.bidirectional(InteropTesting.fullDuplexCall) { call in
                try await call.write(.with { $0.responseStatus = status })
                call.finishRequests()
                for try await _ in call.responses {}
            }
        }
        try check(duplex.message == message, testCase, "FullDuplexCall: message \(duplex.message.debugDescription)")
    }

    func cancelAfterBegin() async throws {
        let status = try await cancelled(InteropTesting.streamingInputCall) { _ in }
        try check(status.code == .cancelled, .cancelAfterBegin, "status \(status), expected CANCELLED")
    }

    func cancelAfterFirstResponse() async throws {
        let status = try await cancelled(InteropTesting.fullDuplexCall) { call in
            try await call.write(Self.outputRequest(sizes: [31_415], payload: 27_182))
            var responses = call.responses.makeAsyncIterator()
            guard let first = try await responses.next() else {
                throw InteropCaseFailure(.cancelAfterFirstResponse, "no response before the cancel")
            }
            try checkPayload(first.payload, size: 31_415, .cancelAfterFirstResponse)
        }
        try check(status.code == .cancelled, .cancelAfterFirstResponse, "status \(status), expected CANCELLED")
    }

    /// Starts a call, runs `prepare`, then cancels the calling task; returns the call's final status.
    private func cancelled<Request: Sendable, Response: Sendable>(
        _ method: MethodDescriptor<Request, Response>,
        prepare: @escaping @Sendable (ClientCall<Request, Response>) async throws -> Void
    ) async throws -> Status {
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let client = self.client
        let task = Task {
            try await client.withCall(method) { call in
                try await prepare(call)
                readyContinuation.yield()
                return await call.status().0
            }
        }
        for await _ in ready { break }
        task.cancel()
        do {
            return try await task.value
        } catch let error as RPCError {
            return error.status
        }
    }

    func timeoutOnSleepingServer() async throws {
        _ = try await expectError(.deadlineExceeded, .timeoutOnSleepingServer) {
            try await client.bidirectional(InteropTesting.fullDuplexCall, options: CallOptions(timeout: .milliseconds(1))) {
                call in
                try await call.write(.with { $0.payload = InteropTesting.payload(27_182) })
                for try await _ in call.responses {}
                let (status, _) = await call.status()
                if let error = RPCError(status: status) { throw error }
            }
        }
    }
}

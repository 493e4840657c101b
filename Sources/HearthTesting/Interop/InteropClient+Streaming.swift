import HearthWire
import Foundation
import SwiftProtobuf

extension InteropClient {
    static func outputRequest(sizes: [Int], payload: Int? = nil) -> Grpc_Testing_StreamingOutputCallRequest {
        .with {
            $0.responseParameters = sizes.map { size in .with { $0.size = Int32(size) } }
            if let payload { $0.payload = InteropTesting.payload(payload) }
        }
    }

    func clientStreaming() async throws {
        let response = try await client.clientStreaming(InteropTesting.streamingInputCall) { writer in
            for size in [27_182, 8, 1_828, 45_904] {
                try await writer.write(.with { $0.payload = InteropTesting.payload(size) })
            }
        }
        try check(
            response.aggregatedPayloadSize == 74_922, .clientStreaming,
            "aggregated_payload_size \(response.aggregatedPayloadSize), expected 74922")
    }

    func clientCompressedStreaming() async throws {
        let probe = Grpc_Testing_StreamingInputCallRequest.with {
            $0.expectCompressed = .with { $0.value = true }
            $0.payload = InteropTesting.payload(27_182)
        }
        if serverChecksCompressedRequests {
            _ = try await expectError(.invalidArgument, .clientCompressedStreaming) {
                _ = try await client.clientStreaming(InteropTesting.streamingInputCall) { try await $0.write(probe) }
            }
        }
        for encoding in MessageEncoding.all {
            let response = try await client.clientStreaming(
                InteropTesting.streamingInputCall, options: CallOptions(compression: encoding)
            ) { writer in
                try await writer.write(probe, compressed: true)
                try await writer.write(
                    .with {
                        $0.expectCompressed = .with { $0.value = false }
                        $0.payload = InteropTesting.payload(45_904)
                    }, compressed: false)
            }
            try check(
                response.aggregatedPayloadSize == 73_086, .clientCompressedStreaming,
                "aggregated_payload_size \(response.aggregatedPayloadSize), expected 73086")
        }
    }

    func serverStreaming() async throws {
        let sizes = [31_415, 9, 2_653, 58_979]
        let responses = try await client.serverStreaming(
            InteropTesting.streamingOutputCall, request: Self.outputRequest(sizes: sizes)
        ) { stream in
            var all: [Grpc_Testing_StreamingOutputCallResponse] = []
            for try await response in stream { all.append(response) }
            return all
        }
        try check(responses.count == 4, .serverStreaming, "\(responses.count) responses, expected 4")
        for (response, size) in zip(responses, sizes) { try checkPayload(response.payload, size: size, .serverStreaming) }
    }

    func serverCompressedStreaming() async throws {
        let request = Grpc_Testing_StreamingOutputCallRequest.with {
            $0.responseParameters = [
                .with {
                    $0.compressed = .with { $0.value = true }
                    $0.size = 31_415
                },
                .with {
                    $0.compressed = .with { $0.value = false }
                    $0.size = 92_653
                },
            ]
        }
        let received = try await client.serverStreaming(InteropTesting.streamingOutputCall, request: request) { stream in
            var iterator = stream.makeAsyncIterator()
            var all: [ReceivedMessage<Grpc_Testing_StreamingOutputCallResponse>] = []
            while let next = try await iterator.nextReceived() { all.append(next) }
            return all
        }
        try check(received.count == 2, .serverCompressedStreaming, "\(received.count) responses, expected 2")
        for (response, (size, compressed)) in zip(received, [(31_415, true), (92_653, false)]) {
            try check(
                response.compressed == compressed, .serverCompressedStreaming,
                "response of \(size) bytes: compressed flag \(response.compressed), expected \(compressed)")
            try checkPayload(response.message.payload, size: size, .serverCompressedStreaming)
        }
    }

    func pingPong() async throws {
        let steps = [(31_415, 27_182), (9, 8), (2_653, 1_828), (58_979, 45_904)]
        try await client.bidirectional(InteropTesting.fullDuplexCall) { call in
            var responses = call.responses.makeAsyncIterator()
            for (size, payload) in steps {
                try await call.write(Self.outputRequest(sizes: [size], payload: payload))
                guard let response = try await responses.next() else {
                    throw InteropCaseFailure(.pingPong, "the stream ended before the response of \(size) bytes")
                }
                try checkPayload(response.payload, size: size, .pingPong)
            }
            call.finishRequests()
            try check(try await responses.next() == nil, .pingPong, "more than four responses")
            let (status, _) = await call.status()
            try check(status.code == .ok, .pingPong, "status \(status)")
        }
    }

    func emptyStream() async throws {
        try await client.bidirectional(InteropTesting.fullDuplexCall) { call in
            call.finishRequests()
            var count = 0
            for try await _ in call.responses { count += 1 }
            try check(count == 0, .emptyStream, "\(count) responses, expected none")
            let (status, _) = await call.status()
            try check(status.code == .ok, .emptyStream, "status \(status)")
        }
    }
}

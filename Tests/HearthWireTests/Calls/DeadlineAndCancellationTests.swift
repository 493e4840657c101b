import Foundation
import HearthTesting
import HearthWire
import SwiftProtobuf
import Testing

@Suite("Deadlines and cancellation")
struct DeadlineAndCancellationTests {
    @Test("a deadline ends the call with DEADLINE_EXCEEDED and cancels the handler")
    func deadline() async throws {
        let probe = ProbeService()
        try await withWireServer(services: [probe]) { _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(ProbeService.hang, request: .init(), options: CallOptions(timeout: .milliseconds(200)))
            }
            #expect(error?.code == .deadlineExceeded)
            // Whichever side's timer fires first, the handler is stopped.
            #expect(await probe.startedHandlersStopped())
        }
    }

    @Test("the server enforces grpc-timeout on its own")
    func serverSideDeadline() async throws {
        // The client sets no deadline of its own, only the header, so the
        // call can end only by the server's DEADLINE_EXCEEDED.
        let probe = ProbeService()
        try await withWireServer(services: [EchoService(), probe]) { _, client in
            var headerOnly = Metadata()
            headerOnly.add("grpc-timeout", "100m")
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(ProbeService.hang, request: .init(), options: CallOptions(metadata: headerOnly))
            }
            #expect(error?.code == .deadlineExceeded)
            #expect(await probe.startedHandlersStopped())
            // The connection is still good for the next call.
            let reply = try await client.unary(Echo.get, request: .with { $0.text = "after" })
            #expect(reply.text == "after")
        }
    }

    @Test("cancelling the calling task resets the stream and cancels the handler")
    func clientCancel() async throws {
        let probe = ProbeService()
        try await withWireServer(services: [probe]) { _, client in
            let call = Task {
                try await client.unary(ProbeService.hang, request: .init())
            }
            var starts = probe.starts.makeAsyncIterator()
            _ = await starts.next()
            call.cancel()
            let result = await call.result
            #expect(throws: RPCError.self) { try result.get() }
            if case .failure(let error as RPCError) = result { #expect(error.code == .cancelled) }
            #expect(await probe.waitFor("stopped", timeout: .seconds(30)))  // a bound: 5 s was once too short under a loaded CI
        }
    }

    @Test("a unary call from a task already cancelled fails CANCELLED and starts no handler; the connection goes on")
    func cancelledBeforeStart() async throws {
        let probe = ProbeService()
        try await withWireServer(services: [EchoService(), probe]) { _, client in
            // Connected first, so that the call's only wait is its hand-over to the event loop.
            _ = try await client.unary(Echo.get, request: .with { $0.text = "warm" })
            let call = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.unary(ProbeService.hang, request: .init())
            }
            let result = await call.result
            if case .failure(let error as RPCError) = result {
                #expect(error.code == .cancelled)
            } else {
                Issue.record("expected CANCELLED, got \(result)")
            }
            let reply = try await client.unary(Echo.get, request: .with { $0.text = "after" })
            #expect(reply.text == "after")
            #expect(!probe.recorded.contains("started"))
        }
    }

    @Test("a unary answer of no message or of two is INTERNAL; the connection goes on")
    func unaryAnswerCount() async throws {
        // The server streams `count` messages on Expand; read as a unary call, only one is an answer.
        let asUnary = MethodDescriptor<Hearth_Echo_V1_ExpandRequest, Hearth_Echo_V1_EchoResponse>(
            service: Echo.service, method: "Expand", kind: .unary)
        try await withWireServer(services: [EchoService()]) { _, client in
            for (count, message) in [(0, "the server sent no response message"), (2, "the server sent more than one response message")] {
                let error = await #expect(throws: RPCError.self) {
                    _ = try await client.unary(asUnary, request: .with { $0.count = UInt32(count) })
                }
                #expect(error?.code == .internal)
                #expect(error?.message == message)
            }
            let one = try await client.unary(asUnary, request: .with {
                $0.count = 1
                $0.text = "one"
            })
            #expect(one.text == "one")
        }
    }

    @Test("leaving a server stream early cancels the handler")
    func abandonStream() async throws {
        let probe = ProbeService()
        try await withWireServer(services: [probe]) { _, client in
            let first = try await client.serverStreaming(ProbeService.flood, request: .init()) { responses in
                for try await response in responses { return response.index }
                return UInt64.max
            }
            #expect(first == 0)
            #expect(await probe.waitFor("write failed", timeout: .seconds(30)))
        }
    }

    @Test("a handler error reaches the caller with its code and a percent-encoded message")
    func statusPropagation() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            for code in [Status.Code.notFound, .invalidArgument, .permissionDenied, .unavailable, .failedPrecondition] {
                let error = await #expect(throws: RPCError.self) {
                    _ = try await client.unary(Echo.get, request: .with { $0.failWithCode = UInt32(code.rawValue) })
                }
                #expect(error?.code == code)
                #expect(error?.message == "requested failure")
            }
        }
    }

    @Test("an unknown method gets UNIMPLEMENTED")
    func unimplemented() async throws {
        let missing = MethodDescriptor<Hearth_Echo_V1_EchoRequest, Hearth_Echo_V1_EchoResponse>(
            service: "hearth.echo.v1.Echo", method: "Nope", kind: .unary)
        try await withWireServer(services: [EchoService()]) { _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(missing, request: .init())
            }
            #expect(error?.code == .unimplemented)
        }
    }
}

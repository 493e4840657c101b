import Foundation
import HearthTesting
import HearthWire
import NIOCore
import SwiftProtobuf
import Testing

/// A stock gRPC implementation (Python grpcio) against ours, both ways.
@Suite("Interop with Python grpcio", .serialized)
struct GRPCIOInteropTests {
    @Test("a grpcio client passes every case against our server")
    func grpcioClientAgainstOurServer() async throws {
        try await withWireServer(services: [EchoService(), HealthService()]) { server, _ in
            let port = try await server.listeningAddresses()[0].port!
            let (status, output) = try await PythonInterop.run("echo_client.py", ["--target", "127.0.0.1:\(port)"])
            let passed = output.split(separator: "\n").filter { $0.hasPrefix("PASS ") }
            #expect(status == 0, "echo_client.py failed:\n\(output)")
            for name in ["health", "unary", "server_stream_100k", "client_stream", "bidi", "deadline_exceeded",
                         "oversize_rejected", "metadata_round_trip", "status_propagation", "unimplemented"] {
                #expect(passed.contains { $0 == "PASS \(name)" }, "case \(name) did not pass:\n\(output)")
            }
        }
    }

    @Test("a grpcio client reaches our server over a Unix-domain socket")
    func grpcioClientOverUnixSocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-interop-\(UUID().uuidString.prefix(8)).sock").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withWireServer(services: [EchoService(), HealthService()], unixSocket: path) { _, _ in
            let (status, output) = try await PythonInterop.run(
                "echo_client.py", ["--target", "unix:\(path)", "--case", "health", "--case", "unary", "--case", "bidi"])
            #expect(status == 0, "echo_client.py over unix socket failed:\n\(output)")
            #expect(output.split(separator: "\n").filter { $0.hasPrefix("PASS ") }.count == 3, "\(output)")
        }
    }

    @Test("our client passes every case against a grpcio server")
    func ourClientAgainstGrpcioServer() async throws {
        let python = try await PythonInterop.Server(arguments: ["--port", "0"])
        defer { python.stop() }
        let client = WireClient(target: .tcp(host: "127.0.0.1", port: python.port))
        defer { client.close() }

        let health = try await client.unary(HealthService.check, request: .init())
        #expect(health.status == .serving)

        let reply = try await client.unary(Echo.get, request: .with { $0.text = "hi"; $0.payload = Data([1, 2]) })
        #expect(reply.text == "hi" && reply.payload == Data([1, 2]))

        let count = try await client.serverStreaming(Echo.expand, request: .with { $0.count = 100_000; $0.payloadSize = 16 }) { responses in
            var next: UInt64 = 0
            for try await response in responses {
                guard response.index == next, response.payload.count == 16 else { break }
                next += 1
            }
            return next
        }
        #expect(count == 100_000)

        let collected = try await client.clientStreaming(Echo.collect) { writer in
            for i in 0..<1000 { try await writer.write(.with { $0.text = "\(i)" }) }
        }
        #expect(collected.index == 1000)

        try await client.bidirectional(Echo.update) { call in
            var responses = call.responses.makeAsyncIterator()
            for i in 0..<500 {
                try await call.write(.with { $0.text = "b\(i)" })
                #expect(try await responses.next()?.text == "b\(i)")
            }
            call.finishRequests()
            #expect(try await responses.next() == nil)
        }

        let deadline = await #expect(throws: RPCError.self) {
            _ = try await client.unary(Echo.get, request: .with { $0.delayMs = 2000 }, options: CallOptions(timeout: .milliseconds(200)))
        }
        #expect(deadline?.code == .deadlineExceeded)

        let oversize = await #expect(throws: RPCError.self) {
            _ = try await client.unary(Echo.get, request: .with { $0.payload = Data(count: 5 << 20) })
        }
        #expect(oversize?.code == .resourceExhausted)

        var metadata = Metadata()
        metadata.add("x-echo-user", "bob")
        metadata.add("x-echo-key-bin", binary: [9, 8, 7])
        let withMetadata = try await client.unaryWithMetadata(Echo.get, request: .init(), options: CallOptions(metadata: metadata))
        #expect(withMetadata.initialMetadata.string(for: "x-echo-user") == "bob")
        #expect(withMetadata.initialMetadata["x-echo-key-bin"] == .binary([9, 8, 7]))
        #expect(withMetadata.trailingMetadata.string(for: "x-echo-trailer-user") == "bob")
        #expect(withMetadata.trailingMetadata["x-echo-trailer-key-bin"] == .binary([9, 8, 7]))

        let notFound = await #expect(throws: RPCError.self) {
            _ = try await client.unary(Echo.get, request: .with { $0.failWithCode = 5 })
        }
        #expect(notFound?.code == .notFound)
        #expect(notFound?.message == "requested failure")

        let missing = MethodDescriptor<Hearth_Echo_V1_EchoRequest, Hearth_Echo_V1_EchoResponse>(
            service: Echo.service, method: "Nope", kind: .unary)
        let unimplemented = await #expect(throws: RPCError.self) {
            _ = try await client.unary(missing, request: .init())
        }
        #expect(unimplemented?.code == .unimplemented)
    }
}

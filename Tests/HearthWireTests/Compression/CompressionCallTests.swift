import Foundation
import HearthTesting
import NIOCore
import NIOEmbedded
import SwiftProtobuf
import Testing

@testable import HearthWire

/// Compressed calls between our client and our server, and what the server answers to compressed requests
/// it must refuse.
@Suite("Compressed calls")
struct CompressionCallTests {
    static let text = String(repeating: "compressible ", count: 2000)

    @Test("compressed requests in either encoding arrive whole; responses go uncompressed by default", arguments: MessageEncoding.all)
    func compressedRequest(encoding: MessageEncoding) async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            let reply = try await client.withCall(Echo.get, options: CallOptions(compression: encoding)) { call in
                try await call.write(.with { $0.text = Self.text })
                call.finishRequests()
                var responses = call.responses.makeAsyncIterator()
                return try await responses.nextReceived()
            }
            #expect(reply?.message.text == Self.text)
            #expect(reply?.compressed == false)
        }
    }

    @Test("with responseCompression .matchRequest the response comes back in the request's encoding", arguments: MessageEncoding.all)
    func matchRequest(encoding: MessageEncoding) async throws {
        var configuration = WireServer.Configuration()
        configuration.responseCompression = .matchRequest
        try await withWireServer(services: [EchoService()], configuration: configuration) { _, client in
            let count = try await client.withCall(Echo.expand, options: CallOptions(compression: encoding)) { call in
                try await call.write(.with { $0.count = 50; $0.payloadSize = 1000 })
                call.finishRequests()
                var responses = call.responses.makeAsyncIterator()
                var count = 0
                while let next = try await responses.nextReceived() {
                    #expect(next.compressed && next.message.payload.count == 1000)
                    count += 1
                }
                return count
            }
            #expect(count == 50)
            // Uncompressed requests get uncompressed responses under the same policy.
            let plain = try await client.withCall(Echo.get) { call in
                try await call.write(.with { $0.text = "x" })
                call.finishRequests()
                var responses = call.responses.makeAsyncIterator()
                return try await responses.nextReceived()
            }
            #expect(plain?.compressed == false)
        }
    }

    @Test("a compressed request that inflates past the limit is refused with RESOURCE_EXHAUSTED; the server keeps serving")
    func bombRequest() async throws {
        var configuration = WireServer.Configuration()
        configuration.connection.limits.maxReceiveMessageSize = 64 * 1024
        try await withWireServer(services: [EchoService()], configuration: configuration) { _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(
                    Echo.get, request: .with { $0.payload = Data(count: 8 << 20) }, options: CallOptions(compression: .gzip))
            }
            #expect(error?.code == .resourceExhausted)
            let after = try await client.unary(Echo.get, request: .with { $0.text = "still" })
            #expect(after.text == "still")
        }
    }

    @Test("a compressed response that inflates past the client's limit fails the call with RESOURCE_EXHAUSTED")
    func bombResponse() async throws {
        var server = WireServer.Configuration()
        server.responseCompression = .preferred(.deflate)
        var clientConfiguration = WireClient.Configuration()
        clientConfiguration.connection.limits.maxReceiveMessageSize = 64 * 1024
        try await withWireServer(services: [EchoService()], configuration: server, clientConfiguration: clientConfiguration) {
            _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.serverStreaming(Echo.expand, request: .with { $0.count = 1; $0.payloadSize = 1 << 20 }) {
                    responses in
                    for try await _ in responses {}
                }
            }
            #expect(error?.code == .resourceExhausted)
        }
    }

    @Test("a server with no encodings enabled answers a compressed request with UNIMPLEMENTED")
    func disabled() async throws {
        var configuration = WireServer.Configuration()
        configuration.connection.compression.enabledEncodings = []
        try await withWireServer(services: [EchoService()], configuration: configuration) { _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(Echo.get, request: .with { $0.text = "x" }, options: CallOptions(compression: .gzip))
            }
            #expect(error?.code == .unimplemented)
            #expect(error?.message.contains("gzip") == true)
        }
    }

    @Test("an unknown grpc-encoding gets UNIMPLEMENTED with grpc-accept-encoding; a compressed flag without an encoding gets INTERNAL")
    func rawRequests() throws {
        let pair = try InMemoryServer()
        let unknown = try pair.client.request(
            RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get", extra: [("grpc-encoding", "snappy")]), body: [0, 0, 0, 0, 0])
        let flagged = try pair.client.request(RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get"), body: [1, 0, 0, 0, 1, 0])
        try pair.pump()
        #expect(pair.client.lastBlock(unknown)["grpc-status"] == "12")
        #expect(pair.client.lastBlock(unknown)["grpc-accept-encoding"] == "identity,gzip,deflate")
        #expect(pair.client.lastBlock(flagged)["grpc-status"] == "13")
        #expect(pair.channel.isActive)
    }

    @Test("compressed data that does not inflate ends the call with INTERNAL when the handler reads it")
    func corruptData() async throws {
        let pair = try InMemoryServer()
        var corrupt = ByteBuffer()
        GRPCMessageFramer.append([1, 2, 3, 4], compressed: true, to: &corrupt)
        let id = try pair.client.request(
            RawH2Client.grpcHeaders(path: "/hearth.echo.v1.Echo/Get", extra: [("grpc-encoding", "gzip")]),
            body: Array(corrupt.readableBytesView))
        try pair.pump()
        var calls = pair.calls.makeAsyncIterator()
        let call = try #require(await calls.next())
        await call.run()
        try pair.pump()
        #expect(pair.client.lastBlock(id)["grpc-status"] == "13")
        #expect(pair.client.lastBlock(id)["grpc-message"]?.contains("decompress") == true)
        #expect(pair.channel.isActive)
    }
}

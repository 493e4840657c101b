import Foundation
import HearthTesting
import HearthWire
import SwiftProtobuf
import Testing

@Suite("Limits")
struct LimitsTests {
    @Test("a request over the receive limit is refused with RESOURCE_EXHAUSTED")
    func oversizeRequest() async throws {
        var configuration = WireServer.Configuration()
        configuration.connection.limits.maxReceiveMessageSize = 64 * 1024
        try await withWireServer(services: [EchoService()], configuration: configuration) { _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(Echo.get, request: .with { $0.payload = Data(count: 65 * 1024) })
            }
            #expect(error?.code == .resourceExhausted)
            // The connection survives and a message at the limit passes.
            let ok = try await client.unary(Echo.get, request: .with { $0.payload = Data(count: 60 * 1024) })
            #expect(ok.payload.count == 60 * 1024)
        }
    }

    @Test("the default 4 MiB limit refuses a 5 MiB request")
    func defaultLimit() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(Echo.get, request: .with { $0.payload = Data(count: 5 << 20) })
            }
            #expect(error?.code == .resourceExhausted)
        }
    }

    @Test("a response over the client's receive limit fails the call with RESOURCE_EXHAUSTED")
    func oversizeResponse() async throws {
        var clientConfiguration = WireClient.Configuration()
        clientConfiguration.connection.limits.maxReceiveMessageSize = 1024
        try await withWireServer(services: [EchoService()], clientConfiguration: clientConfiguration) { _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(Echo.get, request: .with { $0.payload = Data(count: 2048) })
            }
            #expect(error?.code == .resourceExhausted)
        }
    }

    @Test("a header list over the limit is refused with RESOURCE_EXHAUSTED")
    func headerListLimit() async throws {
        var configuration = WireServer.Configuration()
        configuration.connection.limits.maxHeaderListSize = 1024
        try await withWireServer(services: [EchoService()], configuration: configuration) { _, client in
            var metadata = Metadata()
            metadata.add("x-big", String(repeating: "a", count: 2000))
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(Echo.get, request: .init(), options: CallOptions(metadata: metadata))
            }
            #expect(error?.code == .resourceExhausted)
            let ok = try await client.unary(Echo.get, request: .with { $0.text = "small" })
            #expect(ok.text == "small")
        }
    }

    @Test("calls over the running-handler cap are refused as UNAVAILABLE, not queued")
    func handlerCap() async throws {
        let probe = ProbeService()
        var configuration = WireServer.Configuration()
        configuration.maxRunningHandlers = 2
        try await withWireServer(services: [probe, EchoService()], configuration: configuration) { _, client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask { _ = try? await client.unary(ProbeService.hang, request: .init()) }
                }
                var starts = probe.starts.makeAsyncIterator()
                _ = await starts.next()
                _ = await starts.next()
                let error = await #expect(throws: RPCError.self) {
                    _ = try await client.unary(Echo.get, request: .init())
                }
                #expect(error?.code == .unavailable)
                group.cancelAll()
            }
        }
    }
}

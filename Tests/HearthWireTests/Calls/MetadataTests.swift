import Foundation
import HearthTesting
import HearthWire
import SwiftProtobuf
import Testing

@Suite("Metadata")
struct MetadataTests {
    @Test("custom text and -bin metadata round-trip in headers and trailers")
    func roundTrip() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            var metadata = Metadata()
            metadata.add("x-echo-user", "alice")
            metadata.add("x-echo-blob-bin", binary: [0, 1, 2, 255])
            metadata.add("x-not-echoed", "nope")
            let response = try await client.unaryWithMetadata(
                Echo.get, request: .with { $0.text = "m" }, options: CallOptions(metadata: metadata))
            #expect(response.initialMetadata.string(for: "x-echo-user") == "alice")
            #expect(response.initialMetadata["x-echo-blob-bin"] == .binary([0, 1, 2, 255]))
            #expect(response.initialMetadata["x-not-echoed"] == nil)
            #expect(response.trailingMetadata.string(for: "x-echo-trailer-user") == "alice")
            #expect(response.trailingMetadata["x-echo-trailer-blob-bin"] == .binary([0, 1, 2, 255]))
        }
    }

    @Test("metadata travels with an error status")
    func withError() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            var metadata = Metadata()
            metadata.add("x-echo-reason", "testing")
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(
                    Echo.get, request: .with { $0.failWithCode = 9 }, options: CallOptions(metadata: metadata))
            }
            #expect(error?.code == .failedPrecondition)
            #expect(error?.metadata.string(for: "x-echo-trailer-reason") == "testing")
        }
    }

    @Test("a message with non-ASCII text survives percent-encoding end to end")
    func unicodeStatusMessage() async throws {
        struct Failing: WireService {
            func register(into router: inout ServiceRouter) {
                router.registerUnary(Echo.get) { _, _ in
                    throw RPCError(code: .notFound, message: "pièce «salon» 100% introuvable ✓")
                }
            }
        }
        try await withWireServer(services: [Failing()]) { _, client in
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.unary(Echo.get, request: .init())
            }
            #expect(error?.message == "pièce «salon» 100% introuvable ✓")
        }
    }

    @Test("calls over a Unix-domain socket")
    func unixSocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(UUID().uuidString.prefix(8)).sock").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withWireServer(services: [EchoService()], unixSocket: path) { _, client in
            let reply = try await client.unary(Echo.get, request: .with { $0.text = "unix" })
            #expect(reply.text == "unix")
        }
    }

    @Test("the health service answers Check and Watch")
    func health() async throws {
        let health = HealthService()
        try await withWireServer(services: [health]) { _, client in
            let overall = try await client.unary(HealthService.check, request: .init())
            #expect(overall.status == .serving)
            let unknown = await #expect(throws: RPCError.self) {
                _ = try await client.unary(HealthService.check, request: .with { $0.service = "nope" })
            }
            #expect(unknown?.code == .notFound)
            let seen = try await client.serverStreaming(HealthService.watch, request: .with { $0.service = "hub" }) { updates in
                var seen: [Grpc_Health_V1_HealthCheckResponse.ServingStatus] = []
                for try await update in updates {
                    seen.append(update.status)
                    if seen.count == 1 { health.setStatus(.serving, for: "hub") }
                    if seen.count == 2 { health.setStatus(.notServing, for: "hub") }
                    if seen.count == 3 { break }
                }
                return seen
            }
            #expect(seen == [.serviceUnknown, .serving, .notServing])
        }
    }
}

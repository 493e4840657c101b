import Foundation
import HearthTesting
import HearthWire
import SwiftProtobuf
import Testing

/// Server reflection (v1 and v1alpha) answering from the committed descriptor sets.
@Suite("Server reflection")
struct ReflectionTests {
    typealias Request = Grpc_Reflection_V1_ServerReflectionRequest
    typealias Response = Grpc_Reflection_V1_ServerReflectionResponse

    static func service() throws -> ReflectionService {
        try ReflectionService(fileDescriptorSets: [
            HearthEchoV1Descriptors.serializedFileDescriptorSet, GRPCTestingDescriptors.serializedFileDescriptorSet,
        ])
    }

    /// Asks each question on one stream and returns the answers in order.
    static func ask(_ requests: [Request], client: WireClient) async throws -> [Response] {
        try await client.bidirectional(ReflectionService.info) { call in
            var answers: [Response] = []
            var responses = call.responses.makeAsyncIterator()
            for request in requests {
                try await call.write(request)
                if let answer = try await responses.next() { answers.append(answer) }
            }
            call.finishRequests()
            return answers
        }
    }

    static func names(_ response: Response) throws -> [String] {
        try response.fileDescriptorResponse.fileDescriptorProto.map {
            try Google_Protobuf_FileDescriptorProto(serializedBytes: $0).name
        }
    }

    @Test("list services names every service in the files, its own and health's included")
    func listServices() async throws {
        try await withWireServer(services: [EchoService(), try Self.service()]) { _, client in
            let answers = try await Self.ask([.with { $0.listServices = "" }], client: client)
            #expect(answers.first?.listServicesResponse.service.map(\.name) == [
                "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
                "grpc.testing.TestService", "grpc.testing.UnimplementedService", "hearth.echo.v1.Echo",
            ])
        }
    }

    @Test("a file by name comes with its imports, each sent once per stream; the bytes are protoc's descriptors")
    func fileByName() async throws {
        try await withWireServer(services: [try Self.service()]) { _, client in
            let answers = try await Self.ask(
                [.with { $0.fileByFilename = "grpc/testing/test.proto" }, .with { $0.fileByFilename = "grpc/testing/messages.proto" }],
                client: client)
            #expect(try Self.names(answers[0]).first == "grpc/testing/test.proto")
            #expect(Set(try Self.names(answers[0])) == ["grpc/testing/test.proto", "grpc/testing/empty.proto", "grpc/testing/messages.proto"])
            #expect(try Self.names(answers[1]) == ["grpc/testing/messages.proto"])
            let set = try Google_Protobuf_FileDescriptorSet(serializedBytes: GRPCTestingDescriptors.serializedFileDescriptorSet)
            let test = try #require(set.file.first { $0.name == "grpc/testing/test.proto" })
            #expect(answers[0].fileDescriptorResponse.fileDescriptorProto[0] == (try test.serializedBytes()))
            #expect(answers[0].originalRequest.fileByFilename == "grpc/testing/test.proto")
        }
    }

    @Test(
        "symbols resolve to their file: services, methods, messages, nested types, fields, enums",
        arguments: [
            ("grpc.testing.TestService", "grpc/testing/test.proto"),
            ("grpc.testing.TestService.UnaryCall", "grpc/testing/test.proto"),
            ("grpc.testing.SimpleRequest", "grpc/testing/messages.proto"),
            (".grpc.testing.PayloadType", "grpc/testing/messages.proto"),
            ("grpc.testing.Payload.body", "grpc/testing/messages.proto"),
            ("grpc.health.v1.HealthCheckResponse.ServingStatus", "grpc/health/v1/health.proto"),
            ("hearth.echo.v1.Echo", "hearth/echo/v1/echo.proto"),
        ])
    func symbols(symbol: String, file: String) async throws {
        try await withWireServer(services: [try Self.service()]) { _, client in
            let answers = try await Self.ask([.with { $0.fileContainingSymbol = symbol }], client: client)
            #expect(try Self.names(answers[0]).first == file)
        }
    }

    @Test("unknown files, symbols and extensions answer NOT_FOUND; extension numbers of a known type are empty")
    func notFound() async throws {
        try await withWireServer(services: [try Self.service()]) { _, client in
            let answers = try await Self.ask(
                [
                    .with { $0.fileByFilename = "nope.proto" },
                    .with { $0.fileContainingSymbol = "grpc.testing.Nope" },
                    .with { $0.fileContainingExtension = .with { $0.containingType = "grpc.testing.Empty"; $0.extensionNumber = 100 } },
                    .with { $0.allExtensionNumbersOfType = "grpc.testing.Empty" },
                    .with { $0.allExtensionNumbersOfType = "grpc.testing.Nope" },
                    .with { $0.host = "h" },
                ], client: client)
            for index in [0, 1, 2, 4] { #expect(answers[index].errorResponse.errorCode == 5, "\(index)") }
            #expect(answers[3].allExtensionNumbersResponse.baseTypeName == "grpc.testing.Empty")
            #expect(answers[3].allExtensionNumbersResponse.extensionNumber.isEmpty)
            #expect(answers[5].errorResponse.errorCode == 3)
            #expect(answers[5].validHost == "h")
        }
    }

    @Test("v1alpha answers the same questions")
    func v1alpha() async throws {
        try await withWireServer(services: [try Self.service()]) { _, client in
            let answer = try await client.bidirectional(ReflectionService.infoV1alpha) { call in
                try await call.write(.with { $0.fileContainingSymbol = "hearth.echo.v1.Echo" })
                call.finishRequests()
                var responses = call.responses.makeAsyncIterator()
                return try await responses.next()
            }
            let first = try #require(answer?.fileDescriptorResponse.fileDescriptorProto.first)
            #expect(try Google_Protobuf_FileDescriptorProto(serializedBytes: first).name == "hearth/echo/v1/echo.proto")
        }
    }

    @Test("bytes that are not a descriptor set are refused with a clear error")
    func badInput() {
        #expect(throws: ReflectionError.self) { _ = try ReflectionService(fileDescriptorSets: [[0xFF, 0xFF, 0xFF]]) }
    }
}

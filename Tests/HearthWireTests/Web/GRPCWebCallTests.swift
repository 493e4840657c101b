import Foundation
import HearthTesting
import NIOCore
import SwiftProtobuf
import Testing

@testable import HearthWire

/// gRPC-Web against a real server on a loopback port, from a Python client that sends what browser libraries
/// send (tools/interop/grpcweb_client.py), over HTTP/1.1 and HTTP/2.
@Suite("gRPC-Web calls over HTTP/1.1 and HTTP/2")
struct GRPCWebCallTests {
    static let origin = "https://app.example"
    static let maxMessage = 64 * 1024

    static var configuration: WireServer.Configuration {
        var configuration = WireServer.Configuration()
        configuration.connection.limits.maxReceiveMessageSize = maxMessage
        configuration.web = .init(allowedOrigins: [origin]) { request in
            guard request.method == "GET" else { return .text(404, "not found\n") }
            return .text(200, "hello \(request.path) \(request.query ?? "")")
        }
        return configuration
    }

    @Test("every case of the Python gRPC-Web client passes, and native gRPC still works on the same port")
    func pythonClient() async throws {
        try await withWireServer(services: [EchoService()], configuration: Self.configuration) { server, client in
            let port = try await server.listeningAddresses()[0].port!
            let (status, output) = try await PythonInterop.run(
                "grpcweb_client.py",
                ["--port", "\(port)", "--allowed-origin", Self.origin, "--max-message", "\(Self.maxMessage)"],
                timeout: .seconds(120))
            #expect(status == 0, "\(output)")
            #expect(!output.contains("FAIL"), "\(output)")
            #expect(output.components(separatedBy: "PASS ").count - 1 >= 19, "\(output)")
            let reply = try await client.unary(Echo.get, request: .with { $0.text = "native" })
            #expect(reply.text == "native")
            #expect(server.runningHandlers == 0)
        }
    }

    @Test("without the web setting, an HTTP/1.1 request gets no answer but a closed connection")
    func webOff() async throws {
        try await withWireServer(services: [EchoService()]) { server, client in
            let port = try await server.listeningAddresses()[0].port!
            let (status, output) = try await PythonInterop.run(
                "grpcweb_client.py",
                ["--port", "\(port)", "--allowed-origin", Self.origin, "--max-message", "\(Self.maxMessage)",
                 "--case", "h1_unary"],
                timeout: .seconds(60))
            #expect(status != 0)
            #expect(output.contains("FAIL h1_unary"), "\(output)")
            let reply = try await client.unary(Echo.get, request: .with { $0.text = "still h2" })
            #expect(reply.text == "still h2")
        }
    }

    @Test("over TLS, ALPN http/1.1 reaches gRPC-Web and h2 still reaches native gRPC on the same port")
    func tls() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            var configuration = Self.configuration
            configuration.tls = WireServer.TLS(
                certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey)
            let server = WireServer(
                listeningOn: [.tcp(host: "127.0.0.1", port: 0)], services: [EchoService()], configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                defer { group.cancelAll() }
                let port = try await server.listeningAddresses()[0].port!
                let (status, output) = try await PythonInterop.run(
                    "grpcweb_client.py",
                    ["--port", "\(port)", "--allowed-origin", Self.origin, "--max-message", "\(Self.maxMessage)",
                     "--tls-ca", certificates.caCertificate],
                    timeout: .seconds(60))
                #expect(status == 0 && output.contains("PASS tls_h1_unary"), "\(output)")
                var clientConfiguration = WireClient.Configuration()
                clientConfiguration.tls = WireClient.TLS(trustRoots: .file(certificates.caCertificate))
                let client = WireClient(target: .tcp(host: "localhost", port: port), configuration: clientConfiguration)
                defer { client.close() }
                let reply = try await client.unary(Echo.get, request: .with { $0.text = "native tls" })
                #expect(reply.text == "native tls")
            }
        }
    }
}

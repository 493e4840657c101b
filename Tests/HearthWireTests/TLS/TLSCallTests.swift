import Foundation
import HearthTesting
import HearthWire
import SwiftProtobuf
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@Suite("TLS and mutual TLS between our client and our server")
struct TLSCallTests {
    @Test("unary and server-streaming calls over TLS")
    func roundTrip() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            var configuration = WireServer.Configuration()
            configuration.tls = serverTLS(certificates)
            try await withTLSServer(configuration) { _, port in
                let client = WireClient(target: .tcp(host: "127.0.0.1", port: port), configuration: clientTLS(certificates))
                defer { client.close() }
                let reply = try await client.unary(Echo.get, request: .with { $0.text = "over tls" })
                #expect(reply.text == "over tls")
                let count = try await client.serverStreaming(Echo.expand, request: .with { $0.count = 5_000; $0.payloadSize = 16 }) {
                    responses in
                    var expected: UInt64 = 0
                    for try await response in responses {
                        #expect(response.index == expected)
                        expected += 1
                    }
                    return expected
                }
                #expect(count == 5_000)
                // By name too: the certificate names localhost, sent in SNI and checked.
                #expect(try await echo("by name", port: port, host: "localhost", configuration: clientTLS(certificates)).get() == "by name")
            }
        }
    }

    @Test("mutual TLS required: a client without a certificate is refused, one with it is served")
    func mutualRequired() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            let observer = RecordingObserver()
            var configuration = WireServer.Configuration()
            configuration.tls = serverTLS(certificates, clientAuthentication: .required(trustRoots: certificates.caCertificate))
            configuration.observer = observer
            try await withTLSServer(configuration) { _, port in
                let refused = await echo("anonymous", port: port, configuration: clientTLS(certificates))
                #expect(throws: RPCError.self) { try refused.get() }
                if case .failure(let error) = refused { #expect(error.code == .unavailable) }
                let refusal = try await observer.waitForRefusal(.certificate)
                #expect(refusal?.message.contains("certificate") == true)
                let served = await echo("with certificate", port: port, configuration: clientTLS(certificates, presentCertificate: true))
                #expect(try served.get() == "with certificate")
            }
        }
    }

    @Test("mutual TLS optional: clients with and without a certificate are served")
    func mutualOptional() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            var configuration = WireServer.Configuration()
            configuration.tls = serverTLS(certificates, clientAuthentication: .optional(trustRoots: certificates.caCertificate))
            try await withTLSServer(configuration) { _, port in
                let anonymous = try await echo("a", port: port, configuration: clientTLS(certificates)).get()
                #expect(anonymous == "a")
                let presented = try await echo("b", port: port, configuration: clientTLS(certificates, presentCertificate: true)).get()
                #expect(presented == "b")
            }
        }
    }

    @Test("a client that trusts other roots refuses the server, with a reason")
    func untrustedServer() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            var configuration = WireServer.Configuration()
            configuration.tls = serverTLS(certificates)
            try await withTLSServer(configuration) { _, port in
                let result = await echo("x", port: port, configuration: clientTLS(certificates, roots: certificates.otherCACertificate))
                guard case .failure(let error) = result else {
                    Issue.record("a server whose certificate does not verify was trusted")
                    return
                }
                #expect(error.code == .unavailable)
                #expect(error.message.contains("certificate"))
            }
        }
    }

    @Test("a client offering only http/1.1 in ALPN is closed and reported, and the server goes on")
    func http11Refused() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            let observer = RecordingObserver()
            var configuration = WireServer.Configuration()
            configuration.tls = serverTLS(certificates)
            configuration.observer = observer
            try await withTLSServer(configuration) { _, port in
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.trustRoots = .file(certificates.caCertificate)
                tls.applicationProtocols = ["http/1.1"]
                let context = try NIOSSLContext(configuration: tls)
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                try NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                        }
                    }
                    .connect(host: "127.0.0.1", port: port).get()
                // The server closes it after the handshake; bounded by the observer's wait.
                let refusal = try await observer.waitForRefusal(.applicationProtocol)
                #expect(refusal?.message.contains("h2") == true)
                try? await channel.closeFuture.get()
                #expect(try await echo("next", port: port, configuration: clientTLS(certificates)).get() == "next")
            }
        }
    }

    @Test("a plaintext client on a TLS port gets a clear error; the next TLS client is served")
    func plaintextToTLS() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            let observer = RecordingObserver()
            var configuration = WireServer.Configuration()
            configuration.tls = serverTLS(certificates)
            configuration.observer = observer
            try await withTLSServer(configuration) { _, port in
                let result = await echo("plain", port: port, configuration: WireClient.Configuration())
                guard case .failure(let error) = result else {
                    Issue.record("a plaintext call on a TLS port succeeded")
                    return
                }
                #expect(error.code == .unavailable)
                #expect(error.message.contains("TLS"))
                let refusal = try await observer.waitForRefusal(.notTLS)
                #expect(refusal?.message.contains("did not speak TLS") == true)
                #expect(try await echo("tls", port: port, configuration: clientTLS(certificates)).get() == "tls")
            }
        }
    }

    @Test("a TLS client on a plaintext port gets a clear error")
    func tlsToPlaintext() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            try await withTLSServer(WireServer.Configuration()) { _, port in
                let result = await echo("x", port: port, configuration: clientTLS(certificates))
                guard case .failure(let error) = result else {
                    Issue.record("a TLS call on a plaintext port succeeded")
                    return
                }
                #expect(error.code == .unavailable)
                #expect(error.message.contains("TLS"))
                let plain = try await echo("plain", port: port, configuration: WireClient.Configuration()).get()
                #expect(plain == "plain")
            }
        }
    }
}

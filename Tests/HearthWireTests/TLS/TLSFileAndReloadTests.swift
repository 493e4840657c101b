import Foundation
import HearthTesting
import HearthWire
import NIOCore
import SwiftProtobuf
import Testing

@Suite("TLS files: startup errors and reload")
struct TLSFileAndReloadTests {
    enum BadFile: String, CaseIterable, Sendable {
        case missingCertificate, missingKey, garbageCertificate, garbageKey, missingClientRoots
    }

    @Test("a bad or missing file stops the server before it binds, with an error naming the file", arguments: BadFile.allCases)
    func startupError(_ bad: BadFile) async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            let garbage = dir.appendingPathComponent("garbage.pem").path
            try Data("not a pem file\n".utf8).write(to: URL(fileURLWithPath: garbage))
            let missing = dir.appendingPathComponent("missing.pem").path
            var tls = serverTLS(certificates)
            let named: String
            switch bad {
            case .missingCertificate: tls.certificateChain = missing; named = missing
            case .missingKey: tls.privateKey = missing; named = missing
            case .garbageCertificate: tls.certificateChain = garbage; named = garbage
            case .garbageKey: tls.privateKey = garbage; named = garbage
            case .missingClientRoots: tls.clientAuthentication = .required(trustRoots: missing); named = missing
            }
            var configuration = WireServer.Configuration()
            configuration.tls = tls
            let server = WireServer(listeningOn: [.tcp(host: "127.0.0.1", port: 0)], services: [EchoService()], configuration: configuration)
            let error = await #expect(throws: WireTLSError.self) { try await server.run() }
            #expect(error?.message.contains(named) == true)
            #expect(error?.path == named)
            // Waiters for the addresses get the same error instead of waiting forever.
            await #expect(throws: WireTLSError.self) { _ = try await server.listeningAddresses() }
        }
    }

    @Test("a key that does not match the certificate is refused at startup")
    func mismatchedKey() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            var configuration = WireServer.Configuration()
            configuration.tls = WireServer.TLS(certificateChain: certificates.serverCertificate, privateKey: certificates.clientKey)
            let server = WireServer(listeningOn: [.tcp(host: "127.0.0.1", port: 0)], services: [EchoService()], configuration: configuration)
            let error = await #expect(throws: WireTLSError.self) { try await server.run() }
            #expect(error?.message.contains(certificates.clientKey) == true)
        }
    }

    @Test("reload: new connections get the new certificate, a connection opened before keeps working, a bad file keeps the old one")
    func reload() async throws {
        try await withTemporaryTLSDirectory { dir in
            let certificates = try TestCertificates(directory: dir)
            var configuration = WireServer.Configuration()
            configuration.tls = serverTLS(certificates)
            try await withTLSServer(configuration) { server, port in
                let trustsFirst = clientTLS(certificates)
                let trustsSecond = clientTLS(certificates, roots: certificates.otherCACertificate)
                let before = WireClient(target: .tcp(host: "127.0.0.1", port: port), configuration: trustsFirst)
                defer { before.close() }
                #expect(try await before.unary(Echo.get, request: .with { $0.text = "before" }).text == "before")

                // A broken file: the reload fails, naming it, and the server keeps its certificate.
                try Data("broken".utf8).write(to: URL(fileURLWithPath: certificates.serverCertificate))
                let error = #expect(throws: WireTLSError.self) { try server.reloadTLS() }
                #expect(error?.path == certificates.serverCertificate)
                #expect(try await echo("still old", port: port, configuration: trustsFirst).get() == "still old")

                // A certificate from the other CA: only clients trusting it accept new connections.
                try certificates.issueServer(commonName: "renewed", byOtherCA: true)
                try server.reloadTLS()
                #expect(try await echo("new", port: port, configuration: trustsSecond).get() == "new")
                await #expect(throws: RPCError.self) { try await echo("old roots", port: port, configuration: trustsFirst).get() }
                // The connection opened before the reload still carries calls.
                #expect(try await before.unary(Echo.get, request: .with { $0.text = "after" }).text == "after")
            }
        }
    }
}

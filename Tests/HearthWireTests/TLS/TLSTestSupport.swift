import Foundation
import HearthTesting
import HearthWire
import NIOCore
import SwiftProtobuf
import Synchronization

/// Records the connections a server refused before HTTP/2.
final class RecordingObserver: WireServerObserver {
    private let recorded = Mutex<[ConnectionRefusal]>([])

    func connectionRefused(_ refusal: ConnectionRefusal) {
        recorded.withLock { $0.append(refusal) }
    }

    var refusals: [ConnectionRefusal] { recorded.withLock { $0 } }

    /// Waits (at most about 10 s, in 100 steps) until a refusal with `reason` is recorded.
    func waitForRefusal(_ reason: ConnectionRefusal.Reason) async throws -> ConnectionRefusal? {
        for _ in 0..<100 {
            if let refusal = refusals.first(where: { $0.reason == reason }) { return refusal }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}

/// A server's TLS settings from test certificates.
func serverTLS(
    _ certificates: TestCertificates, clientAuthentication: WireServer.TLS.ClientAuthentication = .none
) -> WireServer.TLS {
    var tls = WireServer.TLS(certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey)
    tls.clientAuthentication = clientAuthentication
    tls.handshakeTimeout = .seconds(30)  // As the client's connect timeout, for a loaded test run.
    return tls
}

/// A client's TLS settings trusting the test CA, optionally presenting the test client certificate.
func clientTLS(_ certificates: TestCertificates, presentCertificate: Bool = false, roots: String? = nil) -> WireClient.Configuration {
    var tls = WireClient.TLS(trustRoots: .file(roots ?? certificates.caCertificate))
    if presentCertificate {
        tls.certificateChain = certificates.clientCertificate
        tls.privateKey = certificates.clientKey
    }
    var configuration = WireClient.Configuration()
    configuration.tls = tls
    // Generous: the first seconds of the parallel suite (hundreds of tests starting, debug-built BoringSSL)
    // have made a loopback handshake take over 5 s. The tests check outcomes, not speed.
    configuration.connectTimeout = .seconds(30)
    return configuration
}

/// Runs `body` with a TLS server on an OS-chosen loopback port; the server stops when `body` returns.
func withTLSServer<Result: Sendable>(
    _ configuration: WireServer.Configuration,
    _ body: (WireServer, Int) async throws -> Result
) async throws -> Result {
    let server = WireServer(
        listeningOn: [.tcp(host: "127.0.0.1", port: 0)], services: [EchoService()], configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        defer { group.cancelAll() }
        let port = try await server.listeningAddresses()[0].port!
        return try await body(server, port)
    }
}

/// One client call on a fresh client: the echoed text, or the error.
func echo(_ text: String, port: Int, host: String = "127.0.0.1", configuration: WireClient.Configuration) async
    -> Result<String, RPCError>
{
    let client = WireClient(target: .tcp(host: host, port: port), configuration: configuration)
    defer { client.close() }
    do {
        let reply = try await client.unary(
            Echo.get, request: .with { $0.text = text }, options: CallOptions(timeout: .seconds(30)))
        return .success(reply.text)
    } catch let error as RPCError {
        return .failure(error)
    } catch {
        return .failure(RPCError(code: .unknown, message: "\(error)"))
    }
}

import Foundation
import HearthDriverKit
import HearthHub
import HearthProto
import HearthSDK
import HearthTesting
import HearthWire
import SwiftProtobuf
import Testing

/// The hub's `tls` settings end to end: a Home, a driver and hearthctl over TLS.
@Suite("The hub over TLS")
struct HubTLSTests {
    /// A driver with one lamp, over `tls`.
    static func lights(port: Int, tls: WireClient.TLS) -> Driver {
        var configuration = Driver.Configuration(hub: .tcp(host: "127.0.0.1", port: port), token: Tokens.lights)
        configuration.reconnect = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
        configuration.tls = tls
        let driver = Driver(configuration: configuration)
        driver.add(dimmableLight("lamp"))
        return driver
    }

    @Test("mutual TLS required: a Home and a driver with client certificates work; a plaintext or anonymous client is refused")
    func mutualTLS() async throws {
        try await withTemporaryDirectory { dir in
            let certificates = try TestCertificates(directory: dir.appendingPathComponent("certs"))
            try await withHub(directory: dir.appendingPathComponent("data"), configure: {
                var tls = HubTLS(certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey)
                tls.clientAuthentication = .required(trustRoots: certificates.caCertificate)
                $0.tls = tls
            }) { _, client in
                var tls = WireClient.TLS(trustRoots: .file(certificates.caCertificate))
                tls.certificateChain = certificates.clientCertificate
                tls.privateKey = certificates.clientKey
                var homeConfiguration = Home.Configuration()
                homeConfiguration.tls = tls
                let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin, configuration: homeConfiguration)
                defer { home.close() }
                try await withDriver(Self.lights(port: client.port, tls: tls)) {
                    let lamp = try await eventually { try await home.devices().list().first { $0.id == "lights/lamp" } }
                    #expect(lamp.name == "Lamp")
                }
                // The harness's own client is plaintext: refused on the TLS port.
                await #expect(throws: RPCError.self) {
                    _ = try await client.wire.unary(
                        HomeMethods.listDrivers, request: .init(), options: HubClient.options(Tokens.admin, timeout: .seconds(10)))
                }
                // TLS without a client certificate: refused during the handshake.
                var anonymous = WireClient.Configuration()
                anonymous.tls = WireClient.TLS(trustRoots: .file(certificates.caCertificate))
                let stranger = WireClient(target: .tcp(host: "127.0.0.1", port: client.port), configuration: anonymous)
                defer { stranger.close() }
                let error = await #expect(throws: RPCError.self) {
                    _ = try await stranger.unary(
                        HomeMethods.listDrivers, request: .init(), options: HubClient.options(Tokens.admin, timeout: .seconds(10)))
                }
                #expect(error?.code == .unavailable)
            }
        }
    }

    @Test("\"tls\": {} makes a self-signed certificate once; a Home, a driver and hearthctl trust it; SIGHUP reloads without dropping")
    func selfSigned() async throws {
        try await withTemporaryDirectory { dir in
            let data = dir.appendingPathComponent("data")
            let config = dir.appendingPathComponent("hub.json")
            try #"""
                {"clients": [{"token": "admin-token", "user": "admin", "role": "admin"}],
                 "drivers": [{"id": "lights", "token": "lights-token"}],
                 "tls": {}}
                """#.write(to: config, atomically: true, encoding: .utf8)
            let hub = try await HubProcess(directory: data, config: config)
            defer { hub.terminate() }
            let certificate = data.appendingPathComponent("tls/self-signed.pem").path
            let key = data.appendingPathComponent("tls/self-signed-key.pem").path
            #expect(FileManager.default.fileExists(atPath: certificate))
            let mode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let original = try Data(contentsOf: URL(fileURLWithPath: certificate))

            let tls = WireClient.TLS(trustRoots: .file(certificate))
            var homeConfiguration = Home.Configuration()
            homeConfiguration.tls = tls
            let home = try Home.connect(to: "127.0.0.1:\(hub.port)", token: Tokens.admin, configuration: homeConfiguration)
            defer { home.close() }
            try await withDriver(Self.lights(port: hub.port, tls: tls)) {
                _ = try await eventually { try await home.devices().list().first { $0.id == "lights/lamp" } }
                // SIGHUP: the hub reloads (same files) and keeps serving, the open connections included.
                kill(hub.process.processIdentifier, SIGHUP)
                try await Task.sleep(for: .milliseconds(300))
                #expect(hub.process.isRunning)
                _ = try await home.devices().list()
                let outcome = try await ChildProcessIO.run(
                    builtProduct("hearthctl"),
                    ["devices", "--hub", "127.0.0.1:\(hub.port)", "--token", Tokens.admin, "--tls-ca", certificate],
                    timeout: .seconds(60))
                #expect(outcome.status == 0, "\(outcome.output)")
                #expect(outcome.output.contains("lights/lamp"))
                // Without trusting it, hearthctl says why.
                let refused = try await ChildProcessIO.run(
                    builtProduct("hearthctl"), ["devices", "--hub", "127.0.0.1:\(hub.port)", "--token", Tokens.admin, "--tls", "--timeout", "3"],
                    timeout: .seconds(60))
                #expect(refused.status != 0)
                #expect(refused.output.contains("certificate"), "\(refused.output)")
            }
            hub.terminate()
            // A second start reuses the certificate.
            let again = try await HubProcess(directory: data, config: config)
            defer { again.terminate() }
            #expect(try Data(contentsOf: URL(fileURLWithPath: certificate)) == original)
        }
    }

    @Test("a tls section naming a missing file stops hearth-hub with the file's name")
    func missingFile() async throws {
        try await withTemporaryDirectory { dir in
            let (status, output) = try await HubConfigTests.run(
                config: #"{"tls": {"cert": "/nonexistent/cert.pem", "key": "/nonexistent/key.pem"}}"#, in: dir)
            #expect(status != nil && status != 0)
            #expect(output.contains("/nonexistent/cert.pem"), "\(output)")
        }
    }
}

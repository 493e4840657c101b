import Foundation
import HearthDriverKit
import HearthHub
import HearthModel
import HearthProto
import HearthWire
import SwiftProtobuf
import HearthTesting
import Testing

/// A stock grpcio client (tools/interop/hub_client.py, stubs generated from Protos/) against a real hub.
@Suite("The hub with a Python grpcio client")
struct HubGRPCIOTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The interop virtual environment's python (tools/setup.sh makes it).
    static func python() throws -> URL {
        let python = root.appendingPathComponent("tools/interop/.venv/bin/python")
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "tools/interop/.venv is missing: run tools/setup.sh (the README's test command does)")
        return python
    }

    @Test("grpcio-reflection's client lists and describes every service the hub serves, without a token")
    func reflection() async throws {
        let python = try Self.python()
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                var arguments = [
                    Self.root.appendingPathComponent("tools/interop/reflection_client.py").path,
                    "--target", "127.0.0.1:\(client.port)",
                    "--describe-symbol", "hearth.v1.Device", "--describe-symbol", "hearth.v1.WatchRequest",
                ]
                for service in [
                    HomeMethods.service, DriverMethods.service, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
                    "grpc.reflection.v1alpha.ServerReflection",
                ] {
                    arguments += ["--service", service]
                }
                let outcome = try await ChildProcessIO.run(python, arguments, timeout: .seconds(60))
                #expect(outcome.status == 0, "\(outcome.output)")
                #expect(outcome.output.split(separator: "\n").filter { $0.hasPrefix("PASS ") }.count == 5, "\(outcome.output)")
            }
        }
    }

    @Test("grpcio watches from 0, renames a room, and sees the rename after the synced mark")
    func watchAndRename() async throws {
        let python = try Self.python()
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let outcome = try await ChildProcessIO.run(
                    python,
                    [
                        Self.root.appendingPathComponent("tools/interop/hub_client.py").path, "watch-and-rename",
                        "--target", "127.0.0.1:\(client.port)", "--token", Tokens.admin, "--structure-id", "home",
                    ],
                    timeout: .seconds(60))
                let text = outcome.output
                #expect(outcome.status == 0, "\(text)")
                #expect(text.contains("PASS watch-and-rename"), "\(text)")
            }
        }
    }

    @Test("a grpcio driver process registers devices and answers commands; a hung device gives DEADLINE_EXCEEDED while the other works; its report for another driver's device is refused")
    func pythonDriver() async throws {
        let python = try Self.python()
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                // A device of the lights driver, which the Python driver must not touch.
                let lights = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                lights.add(dimmableLight("lamp"))
                try await withDriver(lights) {
                    try await client.waitForDevice("lights/lamp") { $0.connectivity == .online }
                    let run = Task {
                        try await ChildProcessIO.run(
                            python,
                            [
                                Self.root.appendingPathComponent("tools/interop/hub_driver.py").path,
                                "--target", "127.0.0.1:\(client.port)", "--token", Tokens.python,
                                "--report-foreign", "lights/lamp", "--hang-device", "py-stuck", "--commands", "2",
                                "--seconds", "50",
                            ],
                            timeout: .seconds(60))
                    }
                    let announced = try await client.waitForDevice("python/py-lamp") { $0.connectivity == .online }
                    #expect(announced.name == "Python lamp")
                    try await client.waitForDevice("python/py-stuck") { $0.connectivity == .online }
                    // A device whose driver never answers: the caller gets DEADLINE_EXCEEDED, the driver goes on.
                    await expectStatus(.deadlineExceeded) {
                        _ = try await client.call(
                            HomeMethods.sendCommand,
                            .with { $0.deviceID = "python/py-stuck"; $0.endpoint = 1; $0.traitID = 0x0006; $0.commandID = 0x01 },
                            // Long enough that the command reaches the driver on a loaded machine (it must print
                            // HANGING): 2 s was not always enough under the ASan build.
                            timeout: .seconds(5))
                    }
                    for command: UInt32 in [0x01, 0x02] {
                        _ = try await client.call(HomeMethods.sendCommand, .with {
                            $0.deviceID = "python/py-lamp"; $0.endpoint = 1; $0.traitID = 0x0006; $0.commandID = command
                        })
                    }
                    let outcome = try await run.value
                    #expect(outcome.status == 0, "\(outcome.output)")
                    #expect(outcome.output.contains("WELCOME python"), "\(outcome.output)")
                    #expect(outcome.output.contains("COMMAND 6/1 py-lamp -> onOff=true"), "\(outcome.output)")
                    #expect(outcome.output.contains("COMMAND 6/2 py-lamp -> onOff=false"), "\(outcome.output)")
                    #expect(outcome.output.contains("REJECTED lights/lamp"), "\(outcome.output)")
                    #expect(outcome.output.contains("HANGING 6/1 py-stuck"), "\(outcome.output)")
                    let lamp = try await client.waitForDevice("lights/lamp") { _ in true }
                    #expect(lamp.attribute(0x0006, 0) == .bool(false), "the foreign report changed nothing")
                }
            }
        }
    }
}

/// grpcio over TLS (`grpc.ssl_channel_credentials`) against a hub with the `tls` settings.
@Suite("The hub with a Python grpcio client over TLS")
struct HubGRPCIOTLSTests {
    @Test("grpcio's health check over TLS with a client certificate (mutual TLS optional); without TLS it is refused")
    func healthOverTLS() async throws {
        let python = try HubGRPCIOTests.python()
        try await withTemporaryDirectory { dir in
            let certificates = try TestCertificates(directory: dir.appendingPathComponent("certs"))
            try await withHub(directory: dir.appendingPathComponent("data"), configure: {
                var tls = HubTLS(certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey)
                tls.clientAuthentication = .optional(trustRoots: certificates.caCertificate)
                $0.tls = tls
            }) { _, client in
                let script = HubGRPCIOTests.root.appendingPathComponent("tools/interop/health_check.py").path
                let target = "127.0.0.1:\(client.port)"
                let secure = try await ChildProcessIO.run(
                    python,
                    [
                        script, target, "--tls-ca", certificates.caCertificate, "--tls-cert", certificates.clientCertificate,
                        "--tls-key", certificates.clientKey, "--tls-server-name", "localhost", "--timeout", "30",
                    ],
                    timeout: .seconds(60))
                #expect(secure.status == 0, "\(secure.output)")
                #expect(secure.output.contains("SERVING"), "\(secure.output)")
                let anonymous = try await ChildProcessIO.run(
                    python,
                    [script, target, "--tls-ca", certificates.caCertificate, "--tls-server-name", "localhost", "--timeout", "30"],
                    timeout: .seconds(60))
                #expect(anonymous.status == 0, "\(anonymous.output)")
                let plaintext = try await ChildProcessIO.run(python, [script, target], timeout: .seconds(60))
                #expect(plaintext.status == 2, "\(plaintext.output)")
            }
        }
    }
}

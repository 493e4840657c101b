import Foundation
import HearthHub
import HearthModel
import HearthProto
import HearthSimulator
import HearthTesting
import HearthWire
import Testing

/// A shipped driver executable (beside the test bundle after `swift build --build-tests`) as a real child
/// process against a hub on a temporary Unix socket.
struct DriverProcessCase: Sendable, CustomTestStringConvertible {
    var product: String
    var token: String
    var arguments: [String]
    /// The devices it must bring online, by hub id, with their expected names.
    var devices: [(id: String, name: String?)]

    var testDescription: String { product }

    static let all = [
        DriverProcessCase(
            product: "hearth-driver-lights", token: Tokens.lights, arguments: ["--seed", "5"],
            devices: LightsPlan.devices(count: 3, seed: 5, remoteShare: 0.25).map { ("lights/\($0.id)", $0.name) }),
        DriverProcessCase(
            product: "hearth-driver-camera", token: Tokens.camera, arguments: ["--seed", "1", "--press-every", "0"],
            devices: ["camera-0", "doorbell-1", "camera-2"].map { ("camera/\($0)", nil) }),
    ]
}

@Suite("The shipped driver executables")
struct DriverProcessTests {
    @Test("as a child process a driver brings its devices online; after SIGTERM it exits 0 and they go offline",
          arguments: DriverProcessCase.all)
    func childProcess(_ driver: DriverProcessCase) async throws {
        try await withTemporaryDirectory { dir in
            let socket = dir.appendingPathComponent("hub.sock").path
            try await withHub(directory: dir, configure: { $0.listen.append(.unix(path: socket)) }) { _, client in
                let process = Process()
                process.executableURL = builtProduct(driver.product)
                process.arguments = [
                    "--devices", "3", "--hub", "unix:\(socket)", "--token", driver.token, "--log-level", "warning",
                ] + driver.arguments
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                process.standardInput = FileHandle.nullDevice
                try process.run()
                defer {
                    if process.isRunning {
                        kill(process.processIdentifier, SIGKILL)
                        process.waitUntilExit()
                    }
                }
                let ids = driver.devices.map(\.id)
                let online = try await client.waitForDevices(ids) { $0.aggregate.connectivityState == .online }
                for (device, expected) in zip(online, driver.devices) where expected.name != nil {
                    #expect(device.name == expected.name)
                }

                process.terminate()  // SIGTERM
                // Bounded: a driver that ignores SIGTERM fails here and the defer kills it.
                _ = try? await eventually(timeout: .seconds(30)) { process.isRunning ? nil : true }
                #expect(!process.isRunning, "the driver did not exit after SIGTERM")
                guard !process.isRunning else { return }
                let text = String(decoding: await ChildProcessIO.readToEnd(output.fileHandleForReading), as: UTF8.self)
                #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(text)")
                try await client.waitForDevices(ids) { $0.aggregate.connectivityState == .offline }
            }
        }
    }
}

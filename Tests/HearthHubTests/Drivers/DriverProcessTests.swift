import Foundation
import HearthHub
import HearthModel
import HearthProto
import HearthSimulator
import HearthTesting
import HearthWire
import Testing

/// The built `hearth-driver-lights` executable (beside the test bundle after `swift build --build-tests`) as
/// a real child process against a hub on a temporary Unix socket.
@Suite("The hearth-driver-lights executable")
struct DriverProcessTests {
    static var executable: URL {
        builtProduct("hearth-driver-lights")
    }

    @Test("as a child process it brings its devices online; after SIGTERM it exits cleanly and they go offline")
    func childProcess() async throws {
        try await withTemporaryDirectory { dir in
            let socket = dir.appendingPathComponent("hub.sock").path
            try await withHub(directory: dir, configure: { $0.listen.append(.unix(path: socket)) }) { _, client in
                let process = Process()
                process.executableURL = Self.executable
                process.arguments = [
                    "--devices", "3", "--seed", "5", "--hub", "unix:\(socket)", "--token", Tokens.lights,
                    "--log-level", "warning",
                ]
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
                let ids = LightsPlan.devices(count: 3, seed: 5, remoteShare: 0.25).map { "lights/\($0.id)" }
                let online = try await client.waitForDevices(ids) { $0.aggregate.connectivityState == .online }
                #expect(online.map(\.name) == LightsPlan.devices(count: 3, seed: 5, remoteShare: 0.25).map(\.name))

                process.terminate()  // SIGTERM
                let deadline = ContinuousClock.now + .seconds(30)
                while process.isRunning, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(!process.isRunning, "the driver did not exit after SIGTERM")
                guard !process.isRunning else { return }
                let text = String(decoding: await ChildProcessIO.readToEnd(output.fileHandleForReading), as: UTF8.self)
                #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(text)")
                try await client.waitForDevices(ids) { $0.aggregate.connectivityState == .offline }
            }
        }
    }
}

import Foundation
import HearthProto
import HearthWire
import Testing

/// The built `hearth-driver-camera` executable as a child process against a real hub.
@Suite("Camera driver: the hearth-driver-camera process")
struct CameraDriverProcessTests {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hearth-driver-camera")
    }

    @Test("its devices come online; SIGTERM stops it cleanly (exit 0) and they go offline")
    func sigterm() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let process = Process()
                process.executableURL = Self.executable
                process.arguments = [
                    "--devices", "3", "--seed", "1", "--hub", "127.0.0.1:\(client.port)", "--token", Tokens.camera,
                    "--press-every", "0", "--log-level", "warning",
                ]
                process.standardError = FileHandle.standardError
                try process.run()
                defer {
                    if process.isRunning {
                        kill(process.processIdentifier, SIGKILL)
                        process.waitUntilExit()
                    }
                }
                for id in ["camera/camera-0", "camera/doorbell-1", "camera/camera-2"] {
                    try await client.waitForDevice(id) { $0.connectivity == .online }
                }
                process.terminate()
                // Bounded: a driver that ignores SIGTERM fails here and the defer kills it.
                try #require(try await pollUntil(within: .seconds(15)) { !process.isRunning }, "it exits on SIGTERM")
                process.waitUntilExit()
                #expect(process.terminationReason == .exit && process.terminationStatus == 0)
                try await client.waitForDevice("camera/camera-0") { $0.connectivity == .offline }
            }
        }
    }
}

import Foundation
import HearthHub
import HearthTesting
import Testing

/// A stock grpcio client (tools/interop/hub_client.py, stubs generated from Protos/) against a real hub.
@Suite("The hub with a Python grpcio client")
struct HubGRPCIOTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("grpcio watches from 0, renames a room, and sees the rename after the synced mark")
    func watchAndRename() async throws {
        let python = Self.root.appendingPathComponent("tools/interop/.venv/bin/python")
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "tools/interop/.venv is missing: run tools/setup.sh (the README's test command does)")
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let process = Process()
                process.executableURL = python
                process.arguments = [
                    Self.root.appendingPathComponent("tools/interop/hub_client.py").path, "watch-and-rename",
                    "--target", "127.0.0.1:\(client.port)", "--token", Tokens.admin, "--structure-id", "home",
                ]
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                process.standardInput = FileHandle.nullDevice
                try process.run()
                let handle = output.fileHandleForReading
                async let read = ChildProcessIO.readToEnd(handle)
                let deadline = ContinuousClock.now + .seconds(60)
                while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                let text = String(decoding: await read, as: UTF8.self)
                #expect(process.terminationStatus == 0, "\(text)")
                #expect(text.contains("PASS watch-and-rename"), "\(text)")
            }
        }
    }
}

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
}

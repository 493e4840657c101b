import Foundation
import HearthTesting
import Testing

@Suite("Generated code")
struct GeneratedCodeTests {
    /// The repository root, found from this file's path (Tests/HearthTypesTests/GeneratedCodeTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("is up to date with Catalog/ (tools/catalog/generate.py --check)")
    func upToDate() async throws {
        // Waited for off the cooperative pool (ChildProcessIO), which every test running at once shares.
        let outcome = try await ChildProcessIO.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Self.root.appendingPathComponent("tools/catalog/generate.py").path, "--check"],
            timeout: .seconds(120))
        #expect(outcome.status == 0, "\(outcome.output)")
    }
}

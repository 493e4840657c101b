import Foundation
import Testing

@Suite("Generated code")
struct GeneratedCodeTests {
    /// The repository root, found from this file's path (Tests/HearthTypesTests/GeneratedCodeTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("is up to date with Catalog/ (tools/catalog/generate.py --check)")
    func upToDate() async throws {
        // The child runs for seconds: wait for it off the cooperative pool, which has one thread per core and
        // is shared by every test running at once.
        let (status, text) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(Int32, String), any Error>) in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["python3", Self.root.appendingPathComponent("tools/catalog/generate.py").path, "--check"]
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, text))
            }
        }
        #expect(status == 0, "\(text)")
    }
}

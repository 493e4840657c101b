import Foundation
import Testing

@Suite("Generated code")
struct GeneratedCodeTests {
    /// The repository root, found from this file's path (Tests/HearthTypesTests/GeneratedCodeTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("is up to date with Catalog/ (tools/catalog/generate.py --check)")
    func upToDate() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.root.appendingPathComponent("tools/catalog/generate.py").path, "--check"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
    }
}

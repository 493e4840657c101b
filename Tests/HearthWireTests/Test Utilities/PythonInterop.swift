import Foundation
import HearthTesting
import Testing

/// Runs the Python grpcio harness under `tools/interop` (set up by
/// `tools/setup.sh`) as child processes.
enum PythonInterop {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let interop = root.appendingPathComponent("tools/interop")
    static let python = interop.appendingPathComponent(".venv/bin/python")

    /// Fails the test with a clear message when the venv is missing.
    static func requirePython() throws {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw InteropError("tools/interop/.venv is missing: run tools/setup.sh (the README's test command does)")
        }
    }

    struct InteropError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs a script to completion (bounded by `timeout`), returning its exit
    /// code and combined output.
    static func run(_ script: String, _ arguments: [String], timeout: Duration = .seconds(300)) async throws -> (Int32, String) {
        try requirePython()
        let outcome = try await ChildProcessIO.run(
            python, [interop.appendingPathComponent(script).path] + arguments, timeout: timeout)
        guard let status = outcome.status else {
            throw InteropError("\(script) did not finish within \(timeout):\n\(outcome.output)")
        }
        return (status, outcome.output)
    }

    /// A running Python server; terminated (and its stdin closed) by ``stop()``.
    final class Server: @unchecked Sendable {
        // @unchecked: `process` and `stdin` are set in init and only read
        // afterwards; Process is thread-safe for terminate/wait.
        let process: Process
        let stdin: Pipe
        let port: Int

        /// Starts `script` (a server printing `LISTENING <port>` first) with `arguments`.
        init(script: String = "echo_server.py", arguments: [String]) async throws {
            try PythonInterop.requirePython()
            process = Process()
            process.executableURL = PythonInterop.python
            process.arguments = [PythonInterop.interop.appendingPathComponent(script).path] + arguments
            stdin = Pipe()
            let stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = FileHandle.standardError
            try process.run()
            let handle = stdout.fileHandleForReading
            guard let line = await ChildProcessIO.readFirstLine(handle) else {
                throw InteropError("\(script) exited before listening")
            }
            guard line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)) else {
                process.terminate()
                throw InteropError("unexpected first line from \(script): \(line)")
            }
            self.port = port
        }

        func stop() {
            try? stdin.fileHandleForWriting.close()
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }
}

public import Foundation
import Dispatch

/// Reading a child process's pipes without blocking Swift's cooperative thread pool.
///
/// A blocking read (`readDataToEndOfFile`, `availableData`) inside a `Task` holds one of the pool's threads
/// (two on a 2-core machine) until the child writes or exits; two such reads starve every other task in
/// the process. These run the blocking read on a Dispatch global queue instead.
public enum ChildProcessIO {
    /// What a finished child process left.
    public struct Outcome: Sendable {
        /// Its exit status; nil when it outlived the timeout and was terminated.
        public var status: Int32?
        /// Standard output and standard error, interleaved.
        public var output: String
    }

    /// Runs `executable` to completion, bounded by `timeout` (then terminated), with `input` on its standard
    /// input (empty when nil).
    public static func run(
        _ executable: URL, _ arguments: [String], input: Data? = nil, timeout: Duration
    ) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let inputPipe = input.map { _ in Pipe() }
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        try process.run()
        if let input, let inputPipe {
            // Written off the cooperative pool: a child that does not read would block the write.
            let writer = inputPipe.fileHandleForWriting
            DispatchQueue.global().async {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }
        }
        async let text = readToEnd(output.fileHandleForReading)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        process.waitUntilExit()
        return Outcome(status: timedOut ? nil : process.terminationStatus, output: String(decoding: await text, as: UTF8.self))
    }

    /// Everything `handle` yields until end of file.
    public static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: handle.readDataToEndOfFile()) }
        }
    }

    /// The first line `handle` yields (without the newline), or nil if it reaches end of file first.
    public static func readFirstLine(_ handle: FileHandle) async -> String? {
        await readLine(handle) { _ in true }
    }

    /// The first line `handle` yields that `matches` accepts (without the newline), or nil at end of file.
    /// Lines before it are read and dropped.
    public static func readLine(_ handle: FileHandle, _ matches: @escaping @Sendable (String) -> Bool) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var buffer = Data()
                while true {
                    while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self)
                        buffer.removeSubrange(...newline)
                        if matches(line) { return continuation.resume(returning: line) }
                    }
                    let chunk = handle.availableData
                    if chunk.isEmpty { return continuation.resume(returning: nil) }
                    buffer.append(chunk)
                }
            }
        }
    }
}

import Foundation

/// Runs this same executable with a subcommand and decodes the JSON line it prints; its stderr (progress)
/// goes straight to ours.
enum ChildProcess {
    /// This executable's path (`/proc/self/exe` on Linux).
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// - Parameter arguments: the subcommand and its options; `spawnedAt`, when true, appends
    ///   `--spawned-at <CLOCK_MONOTONIC ns>` taken just before the process starts.
    /// - Throws: ``BenchError`` when the process fails or prints no JSON line.
    static func run<Output: Decodable>(
        _ arguments: [String], spawnedAt: Bool = false, as _: Output.Type
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        process.arguments = arguments + (spawnedAt ? ["--spawned-at", String(ProcessProbe.monotonicNanoseconds())] : [])
        try process.run()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError("`\(arguments.joined(separator: " "))` failed (status \(process.terminationStatus))")
        }
        guard let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last else {
            throw BenchError("`\(arguments.joined(separator: " "))` printed no result")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Output.self, from: Data(line.utf8))
    }
}

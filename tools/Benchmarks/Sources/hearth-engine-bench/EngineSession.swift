import Foundation
import HearthHub
import Logging

/// Runs `body` with an engine over `directory`, its commit loop running beside it; stops the loop (which
/// commits what is pending) when `body` returns or throws.
func withEngine<T: Sendable>(
    directory: URL, retainedChanges: Int?, _ body: (HubEngine) async throws -> T
) async throws -> T {
    let engine = try await openEngine(directory: directory, retainedChanges: retainedChanges)
    return try await withEngineRunning(engine, body)
}

/// `HubEngine.open` with the engine's defaults, a quiet logger, and `retainedChanges` if given.
func openEngine(directory: URL, retainedChanges: Int?) async throws -> HubEngine {
    var logger = Logger(label: "hearth.engine-bench")
    logger.logLevel = .warning
    var configuration = HubEngine.Configuration(dataDirectory: directory)
    if let retainedChanges { configuration.retainedChanges = retainedChanges }
    return try await HubEngine.open(configuration: configuration, logger: logger)
}

/// Runs `body` while `engine.run()` commits and publishes; then cancels the loop and waits for it.
func withEngineRunning<T: Sendable>(_ engine: HubEngine, _ body: (HubEngine) async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await engine.run() }
        do {
            let result = try await body(engine)
            group.cancelAll()
            try await group.waitForAll()
            return result
        } catch {
            group.cancelAll()
            throw error
        }
    }
}

/// Polls `condition` every `interval` until it holds; throws once `limit` has passed.
func waitUntil(
    _ what: @autoclosure () -> String, limit: Duration, every interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw BenchError("timed out after \(limit): \(what())") }
        try await Task.sleep(for: interval)
    }
}

/// A failure that ends the benchmark with a message.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Progress for the person watching (stderr, so stdout stays the result).
func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

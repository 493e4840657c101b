import ArgumentParser
import Foundation
import HearthHub

/// Opens an existing data directory in this fresh process and times how soon the engine serves: `info()`
/// answering, then a watcher from revision 0 holding the whole snapshot. Prints one JSON line on stdout.
struct ColdStartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cold-start",
        abstract: "Times opening a filled data directory until the first snapshot is delivered (prints JSON).")

    @Option(help: "A data directory a `measure` run left behind.")
    var dataDirectory: String

    @Option(help: "The devices the directory holds; the run fails if the engine loads another number.")
    var devices: Int

    @Option(help: "Changes the engine retains (HubEngine.Configuration.retainedChanges; default: the engine's).")
    var retainedChanges: Int?

    @Option(help: "CLOCK_MONOTONIC nanoseconds when the parent started this process (for process-ready time).")
    var spawnedAt: UInt64?

    func run() async throws {
        let directory = URL(fileURLWithPath: dataDirectory)
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("hub.sqlite").path) else {
            throw BenchError("no hub.sqlite in \(dataDirectory)")
        }
        let started = ContinuousClock.now
        let engine = try await openEngine(directory: directory, retainedChanges: retainedChanges)
        let opened = ContinuousClock.now - started
        let result = try await withEngineRunning(engine) { engine in
            _ = await engine.info()
            let answered = ContinuousClock.now - started
            let watcher = Subscriber(work: .scan)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await watcher.run(engine) }
                defer { group.cancelAll() }
                try await waitUntil("the first snapshot", limit: .seconds(600), every: .milliseconds(1)) {
                    try Subscriber.check([watcher])
                    return watcher.synced
                }
                let ready = ContinuousClock.now - started
                let readyAt = ProcessProbe.monotonicNanoseconds()
                let loaded = await engine.statistics().devices
                guard loaded == devices else { throw BenchError("loaded \(loaded) devices, expected \(devices)") }
                return ColdStartResult(
                    devices: loaded, openSeconds: opened.seconds, infoSeconds: answered.seconds,
                    snapshotSeconds: ready.seconds,
                    processReadySeconds: spawnedAt.map { Double(readyAt &- $0) / 1e9 },
                    snapshotChanges: watcher.snapshotChanges, rssBytes: ProcessProbe.memory().rss)
            }
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        print(String(decoding: try encoder.encode(result), as: UTF8.self))
    }
}

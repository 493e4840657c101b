import ArgumentParser
import Foundation
import HearthHub
import HearthProto

/// One device count in a fresh process: memory per device while announcing, then one throughput window per
/// subscriber count. Leaves the data directory behind for `cold-start`; prints one JSON line on stdout.
struct MeasureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Memory and throughput for one device count (run starts it; prints JSON on stdout).")

    @Option(help: "Lights to announce.")
    var devices: Int

    @Option(help: "Subscriber counts, one throughput window each, in order.")
    var subscribers = CountList([0, 1, 10, 100])

    @Option(help: "Measured seconds per window.")
    var seconds: Double = 5

    @Option(help: "Seconds of reports before each window.")
    var warmup: Double = 1

    @Option(help: "Trait changes per Report message (DriverKit batches up to 1000; 1 = one revision per change).")
    var traitsPerReport = 1

    @Option(help: "What subscribers do with each response: scan (count changes) or decode (SwiftProtobuf).")
    var work = Subscriber.Work.scan

    @Option(help: "Changes the engine retains (HubEngine.Configuration.retainedChanges; default: the engine's).")
    var retainedChanges: Int?

    @Option(help: "The data directory; emptied first.")
    var dataDirectory: String

    func validate() throws {
        guard devices > 0 else { throw ValidationError("--devices must be at least 1") }
        guard seconds > 0, warmup >= 0 else { throw ValidationError("--seconds must be > 0 and --warmup >= 0") }
        guard traitsPerReport > 0 else { throw ValidationError("--traits-per-report must be at least 1") }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: dataDirectory)
        try? FileManager.default.removeItem(at: directory)
        var lights = Lights(count: devices)
        let output = try await withEngine(directory: directory, retainedChanges: retainedChanges) { engine in
            _ = await engine.driverConnected(Lights.driver)
            let memory = try await announce(engine, &lights)
            var throughput: [ThroughputResult] = []
            for count in subscribers.values {
                progress("  \(devices) devices, \(count) subscribers: snapshots, \(warmup) s warm-up, \(seconds) s measured")
                let run = ThroughputRun(
                    subscribers: count, work: work, warmup: .seconds(warmup), window: .seconds(seconds),
                    traitsPerReport: traitsPerReport)
                let result = try await run.run(engine, lights: &lights)
                progress(
                    "    applied \(Int(result.appliedPerSecond)) changes/s, delivered \(Int(result.deliveredPerSubscriberPerSecond))/s per subscriber")
                throughput.append(result)
            }
            return MeasureOutput(memory: memory, throughput: throughput)
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        print(String(decoding: try encoder.encode(output), as: UTF8.self))
    }

    /// Announces every light as the driver would (messages of 200, each committed before it returns) and
    /// measures resident memory before and after.
    private func announce(_ engine: HubEngine, _ lights: inout Lights) async throws -> MemoryResult {
        let before = ProcessProbe.trimmedRSS()
        let started = ContinuousClock.now
        for index in 0..<lights.announceMessages {
            let result = try await engine.announce(driver: Lights.driver, lights.announce(index))
            if let first = result.rejected.first { throw BenchError("the engine refused an announcement: \(first)") }
        }
        let elapsed = (ContinuousClock.now - started).seconds
        let after = ProcessProbe.trimmedRSS()
        let known = await engine.statistics().devices
        guard known == devices else { throw BenchError("the engine holds \(known) devices, not \(devices)") }
        progress(
            "  \(devices) devices announced in \(String(format: "%.1f", elapsed)) s, "
                + "\(Int(Double(after - before) / Double(devices))) bytes each")
        return MemoryResult(
            devices: devices, rssBeforeBytes: before, rssAfterBytes: after,
            bytesPerDevice: Double(after - before) / Double(devices), announceSeconds: elapsed,
            peakRssBytes: ProcessProbe.memory().peak)
    }
}

import ArgumentParser
import Foundation
import HearthHub

#if canImport(Glibc)
import Glibc
#endif

/// The whole benchmark: for each device count, a `measure` process (memory, then throughput per subscriber
/// count), then `cold-start` processes on the data directory it filled. Prints the tables.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Runs every measurement and prints the tables (the default).")

    @Option(help: "Device counts, e.g. 10000,100000 or 10k,100k (default 10k,100k; --quick: 1k,10k).")
    var devices: CountList?

    @Option(help: "Subscriber counts measured for each device count.")
    var subscribers = CountList([0, 1, 10, 100])

    @Option(help: "Measured seconds per throughput window (default 5; --quick: 2).")
    var seconds: Double?

    @Option(help: "Seconds of reports before each window (default 1; --quick: 0.5).")
    var warmup: Double?

    @Option(help: "Trait changes per Report message (1: every change is its own revision).")
    var traitsPerReport = 1

    @Option(help: "What subscribers do with each response: scan (count the changes) or decode (SwiftProtobuf).")
    var work = Subscriber.Work.scan

    @Option(help: "Changes the engine retains for watchers (HubEngine.Configuration.retainedChanges; default: the engine's, 100000).")
    var retainedChanges: Int?

    @Option(help: "Cold starts per device count, each a fresh process (default 3; --quick: 1).")
    var coldStarts: Int?

    @Flag(help: "A short run: 1k and 10k devices, 2 s windows, one cold start.")
    var quick = false

    @Option(help: "Also write the results as JSON to this file.")
    var json: String?

    @Option(help: "Where the data directories go (default: a new temporary directory, removed afterwards).")
    var workDirectory: String?

    func validate() throws {
        if let devices, devices.values.contains(0) { throw ValidationError("--devices must all be at least 1") }
        if let seconds, seconds <= 0 { throw ValidationError("--seconds must be > 0") }
        if let coldStarts, coldStarts < 0 { throw ValidationError("--cold-starts must be >= 0") }
        if let retainedChanges, retainedChanges < 1 { throw ValidationError("--retained-changes must be at least 1") }
    }

    func run() throws {
        let settings = BenchReport.Settings(
            devices: (devices ?? CountList(quick ? [1000, 10000] : [10000, 100_000])).values,
            subscribers: subscribers.values, seconds: seconds ?? (quick ? 2 : 5), warmupSeconds: warmup ?? (quick ? 0.5 : 1),
            traitsPerReport: traitsPerReport, subscriberWork: work.rawValue,
            retainedChanges: retainedChanges ?? HubEngine.Configuration(dataDirectory: URL(fileURLWithPath: "/")).retainedChanges,
            coldStarts: coldStarts ?? (quick ? 1 : 3))
        let loadAverage = Self.loadAverage()
        let base: URL
        if let workDirectory {
            base = URL(fileURLWithPath: workDirectory)
        } else {
            base = FileManager.default.temporaryDirectory.appendingPathComponent(
                "hearth-engine-bench-\(ProcessInfo.processInfo.processIdentifier)")
        }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { if workDirectory == nil { try? FileManager.default.removeItem(at: base) } }

        let retained = retainedChanges.map { ["--retained-changes", String($0)] } ?? []
        var results: [BenchReport.PerDeviceCount] = []
        for count in settings.devices {
            let directory = base.appendingPathComponent("devices-\(count)").path
            progress("\(count) devices: measure (fresh process)")
            let measured = try ChildProcess.run(
                [
                    "measure", "--devices", String(count), "--subscribers", subscribers.argument,
                    "--seconds", String(settings.seconds), "--warmup", String(settings.warmupSeconds),
                    "--traits-per-report", String(traitsPerReport), "--work", work.rawValue,
                    "--data-directory", directory,
                ] + retained, as: MeasureOutput.self)
            var starts: [ColdStartResult] = []
            for run in 0..<settings.coldStarts {
                progress("\(count) devices: cold start \(run + 1) of \(settings.coldStarts) (fresh process)")
                starts.append(
                    try ChildProcess.run(
                        ["cold-start", "--data-directory", directory, "--devices", String(count)] + retained,
                        spawnedAt: true,
                        as: ColdStartResult.self))
            }
            results.append(
                .init(devices: count, memory: measured.memory, throughput: measured.throughput, coldStarts: starts))
            if workDirectory == nil { try? FileManager.default.removeItem(atPath: directory) }
        }

        let report = BenchReport(
            date: ISO8601DateFormatter().string(from: Date()),
            commit: ProcessInfo.processInfo.environment["BENCH_COMMIT"], host: Self.host(),
            cpus: ProcessInfo.processInfo.activeProcessorCount, loadAverageAtStart: loadAverage,
            loadAverageAtEnd: Self.loadAverage(), settings: settings,
            results: results)
        print(ReportTable(report).render())
        if let json {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let url = URL(fileURLWithPath: json)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(report).write(to: url)
            print("JSON: \(json)")
        }
    }

    /// The 1, 5 and 15 minute load averages: other work on the machine skews every figure.
    private static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
            .map { $0.split(separator: " ").prefix(3).joined(separator: " ") } ?? "unknown"
    }

    private static func host() -> String {
        var name = utsname()
        uname(&name)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        }
        return "\(text(name.sysname)) \(text(name.release)) \(text(name.machine))"
    }
}

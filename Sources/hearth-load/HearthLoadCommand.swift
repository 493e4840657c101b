import ArgumentParser
import Foundation
import HearthDriverKit
import HearthLoad
import Logging

/// `hearth-load`: the whole system under load (hub, driver processes, watching clients); see
/// `tools/load/README.md`.
@main
struct HearthLoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-load",
        abstract: "Load-tests a Hearth hub with driver processes and watching HearthSDK clients.",
        subcommands: [
            Run.self, DriverProcess.self, ClientFootprintProcess.self, SDKBenchCommand.self, ReplayServerCommand.self,
            ToggleCommand.self,
        ], defaultSubcommand: Run.self)
}

/// Runs a preset (or a custom plan) and writes the results.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Starts a hub, drivers and clients; drives reports and commands; writes a table, JSON and an SVG plot.")

    @Option(help: "small (100 devices, the CI smoke test), home (1k) or building (100k, 50 drivers, 20 clients).")
    var preset = "small"
    @Option(help: "Devices in all (overrides the preset).") var devices: Int?
    @Option(help: "Driver processes (overrides the preset).") var drivers: Int?
    @Option(help: "Seconds per rate (overrides the preset).") var seconds: Double?
    @Option(help: "Comma-separated rates to run instead of the search, e.g. 500,1000.") var rates: String?
    @Option(help: "Folder for the results (default: results/load/<preset>-<time>).") var out: String?
    @Option(help: "Watching clients by kind instead of the preset's, e.g. batched=2,stream=1,devices=0,types=0,watch=4.")
    var clients: String?
    @Option(help: "Lean watchers (raw Watch streams without HearthSDK) to add: the hub's fan-out to K readers.")
    var watchers: Int?
    @Flag(help: "Skip the stalled-client phase.") var noStall = false
    @Option(help: "OnOff toggles per second in the command phase, spread over the clients (overrides the preset).")
    var commandRate: Double?
    @Option(help: "Seconds of the command phase (overrides the preset).") var commandSeconds: Double?
    @Option(help: "The HearthSDK clients' Home.Configuration.updateInterval in ms (0-1000; default 0: each change at once).")
    var updateIntervalMs: Int?
    @Option(help: "How many clients connect and list the home at once when they join (default 4; the rest wait their turn).")
    var joinConcurrency: Int?

    func run() async throws {
        guard var plan = LoadPlan.presets[preset] else {
            throw ValidationError("unknown preset '\(preset)'; use \(LoadPlan.presets.keys.sorted().joined(separator: ", "))")
        }
        if let devices { plan.devices = devices; plan.name = "custom" }
        if let drivers { plan.drivers = drivers; plan.name = "custom" }
        if let seconds { plan.seconds = seconds }
        if let rates {
            let parsed = rates.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !parsed.isEmpty, parsed.allSatisfy({ $0 > 0 }) else { throw ValidationError("--rates must be positive numbers") }
            plan.rates = parsed
        }
        if let clients { plan.clients = try Self.parseClients(clients) }
        if let watchers {
            guard watchers >= 0 else { throw ValidationError("--watchers must be 0 or more") }
            plan.clients[.watch] = watchers
        }
        guard !plan.clientList.isEmpty else { throw ValidationError("no clients: give --clients or --watchers") }
        if noStall { plan.stall = false }
        if let commandRate {
            guard commandRate >= 0 else { throw ValidationError("--command-rate must be 0 or more") }
            plan.commandRate = commandRate
        }
        if let commandSeconds {
            guard commandSeconds > 0 else { throw ValidationError("--command-seconds must be positive") }
            plan.commandSeconds = commandSeconds
        }
        if let updateIntervalMs {
            let most = LoadPlan.maxUpdateIntervalMs
            guard (0...most).contains(updateIntervalMs) else {
                throw ValidationError("--update-interval-ms must be 0 to \(most)")
            }
            plan.updateIntervalMs = updateIntervalMs
        }
        if let joinConcurrency {
            guard joinConcurrency > 0 else { throw ValidationError("--join-concurrency must be 1 or more") }
            plan.joinConcurrency = joinConcurrency
        }
        guard plan.devices >= plan.drivers, plan.drivers > 0 else { throw ValidationError("need at least one device per driver") }

        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "hearth.load")
        logger.logLevel = .info
        let me = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath()
        let hub = me.deletingLastPathComponent().appendingPathComponent("hearth-hub")
        guard FileManager.default.isExecutableFile(atPath: hub.path) else {
            throw ValidationError("no hearth-hub beside \(me.path): build it (swift build --product hearth-hub)")
        }
        let report = try await LoadRun(plan: plan, executables: .init(hub: hub, load: me), logger: logger).run()

        let folder = URL(fileURLWithPath: out ?? "results/load/\(plan.name)-\(Self.stamp())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: folder.appendingPathComponent("results.json"))
        try Data(report.table.utf8).write(to: folder.appendingPathComponent("table.txt"))
        try Data(report.svg.utf8).write(to: folder.appendingPathComponent("latency.svg"))
        print(report.table)
        print("results: \(folder.path)/{results.json,table.txt,latency.svg}")
        if !report.clean { throw ExitCode(2) }
    }

    /// `kind=count,…` with each kind at most once.
    static func parseClients(_ text: String) throws -> [ClientKind: Int] {
        var clients: [ClientKind: Int] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let kind = ClientKind(rawValue: parts[0]), let count = Int(parts[1]), count >= 0 else {
                throw ValidationError(
                    "--clients: '\(item)' is not kind=count with kind one of \(ClientKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard clients[kind] == nil else { throw ValidationError("--clients names '\(kind.rawValue)' twice") }
            clients[kind] = count
        }
        return clients
    }

    static func stamp() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: Date())
    }
}

/// One driver process of a run (started by `run`, not by hand).
struct DriverProcess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "driver", abstract: "A load driver: its devices, then reports as standard input asks (internal).")

    @Option(help: "The hub: unix:/path or host:port.") var hub: String
    @Option(help: "The driver token.") var token: String
    @Option(help: "The driver's number (1-based); it picks the devices.") var index: Int
    @Option(help: "How many devices.") var devices: Int
    @Option(help: "The shortest sleep between sends, in µs: reports due meanwhile go out together (the C benchmark drivers use 1000).")
    var tickUs = 200

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "hearth.load.driver.\(index)")
        logger.logLevel = .warning
        let configuration = Driver.Configuration(hub: try Driver.Configuration.parseTarget(hub), token: token)
        let driver = LoadDriver(
            configuration: configuration, devices: LoadMix.devices(count: devices, driver: index),
            tickMicros: UInt64(max(tickUs, 1)), logger: logger)
        try await driver.run()
    }
}

/// One fresh client process that connects, lists and reports its footprint (started by `run`).
struct ClientFootprintProcess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk-client", abstract: "Times one Home's first list() and its memory per device (internal).")

    @Option(help: "The hub: host:port.") var address: String
    @Option(help: "A client token.") var token: String

    func run() async throws {
        let footprint = try await ClientFootprint.measure(address: address, token: token)
        print(footprint.line)
    }
}

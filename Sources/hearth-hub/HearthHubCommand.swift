public import ArgumentParser
import Foundation
import HearthHub
import HearthWire
public import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `hearth-hub`: one process per home. Owns the home graph in SQLite and serves clients and drivers.
@main
struct HearthHubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-hub",
        abstract: "The Hearth home hub: serves clients and drivers over gRPC-compatible HTTP/2.")

    @Option(help: "JSON config file (see deploy/hearth-hub.json). Flags override its values.")
    var config: String?

    @Option(help: "Data directory holding hub.sqlite (default: ./.hearth, or data_dir from the config).")
    var dataDir: String?

    @Option(help: "TCP address to listen on, HOST:PORT (port 0 picks a free port). Default 127.0.0.1:7070.")
    var listen: String?

    @Option(help: "Unix-domain socket to listen on as well (for local drivers and tools).")
    var socket: String?

    @Option(help: "HTTP/1.1 address for Prometheus (/metrics) and probes (/healthz), HOST:PORT. Default: off.")
    var metricsListen: String?

    @Option(help: "Serve the web dashboard's files from this folder instead of the copy built in (for working on it).")
    var dashboardDir: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "hearth.hub")
        let file = try config.map(HubConfigFile.load) ?? HubConfigFile()
        let dataDirectory = URL(fileURLWithPath: dataDir ?? file.dataDir ?? ".hearth")
        var configuration = Hub.Configuration(dataDirectory: dataDirectory)
        configuration.listen = [try Self.parseListen(listen ?? file.listen ?? "127.0.0.1:7070")]
        if let socket = socket ?? file.socket {
            try? FileManager.default.removeItem(atPath: socket)  // a stale socket from a killed hub
            configuration.listen.append(.unix(path: socket))
        }
        if let metrics = metricsListen ?? file.metricsListen {
            configuration.metricsListen = try Self.parseListen(metrics)
        }
        if let structures = file.structures, !structures.isEmpty {
            configuration.engine.initialStructures = structures.map { ($0.id, $0.name) }
        }
        if let retained = file.retainedChanges {
            guard retained >= 1 else { throw ConfigError("config: retained_changes must be at least 1, got \(retained)") }
            configuration.engine.retainedChanges = retained
        }
        if let mib = file.retainedChangesMiB {
            guard (1...65536).contains(mib) else { throw ConfigError("config: retained_changes_mib must be 1 to 65536, got \(mib)") }
            configuration.engine.retainedChangeBytes = mib * 1024 * 1024
        }
        if let ms = file.progressIntervalMs { configuration.progressInterval = .milliseconds(ms) }
        if let ms = file.commandTimeoutMs { configuration.defaultCommandTimeout = .milliseconds(ms) }
        if let loops = file.eventLoops {
            guard (0...1024).contains(loops) else {
                throw ConfigError("config: event_loops must be 0 (one per allowed CPU) to 1024, got \(loops)")
            }
            configuration.eventLoops = loops == 0 ? nil : loops
        }
        if let ms = file.stateSaveIntervalMs {
            guard (1...60_000).contains(ms) else {
                throw ConfigError("config: state_save_interval_ms must be 1 to 60000, got \(ms)")
            }
            configuration.engine.stateSaveInterval = .milliseconds(ms)
        }
        if let ms = file.snapshotCacheLingerMs {
            guard (0...600_000).contains(ms) else {
                throw ConfigError("config: snapshot_cache_linger_ms must be 0 to 600000, got \(ms)")
            }
            configuration.engine.snapshotCacheLinger = .milliseconds(ms)
        }
        try file.limits?.apply(to: &configuration)
        configuration.tls = try file.tls?.settings()
        try (file.dashboard ?? HubConfigFile.DashboardEntry()).apply(to: &configuration.dashboard, directoryFlag: dashboardDir)
        configuration.tokens = try file.tokens()
        configuration.plugins = try file.pluginSpecs(
            hubExecutable: (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath())
        if configuration.tokens.isEmpty && configuration.plugins.isEmpty {
            logger.warning("hub.config.no_tokens: no client or driver tokens configured; every call will be refused")
        }

        let metrics = HubMetrics()
        // Libraries that count through swift-metrics land on the hub's page too.
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
        let hub = try await Hub.open(configuration: configuration, logger: logger, metrics: metrics)
        let group = ServiceGroup(
            services: [HubService(hub: hub, logger: logger)], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        try await group.run()
    }

    static func parseListen(_ value: String) throws -> WireServer.BindTarget {
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw ValidationError("a listen address must be HOST:PORT, got \(value)")
        }
        var host = String(value[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return .tcp(host: host, port: port)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Runs the hub as a lifecycle service and prints the `LISTENING` line scripts and tests wait for.
struct HubService: Service {
    let hub: Hub
    let logger: Logger

    func run() async throws {
        // Trapped before LISTENING is printed: from then on a SIGHUP reloads TLS instead of ending the process.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await hub.run() }
            let addresses = try await hub.listeningAddresses()
            for address in addresses {
                logger.info("hub.listening", metadata: ["hub.address": "\(address)"])
            }
            if let metrics = hub.metricsAddress {
                logger.info("hub.metrics", metadata: ["hub.address": "\(metrics)"])
                print("METRICS \(metrics)")
            }
            print("LISTENING \(addresses.map { "\($0)" }.joined(separator: " "))")
            fflush(nil)  // stdout is not a tty under scripts
            // SIGHUP re-reads the TLS certificate and key: new connections use them, open ones keep theirs.
            group.addTask {
                for await _ in hangups {
                    do {
                        try hub.reloadTLS()
                    } catch {
                        logger.error("hub.tls.reload_failed: keeping the current certificate", metadata: ["hub.error": "\(error)"])
                    }
                }
            }
            // The hub's run ends first (the signal loop never does); then stop listening for signals.
            try await group.next()
            group.cancelAll()
        }
    }
}

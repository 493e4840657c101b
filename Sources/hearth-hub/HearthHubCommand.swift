public import ArgumentParser
import HearthWire
public import Logging
import ServiceLifecycle
import UnixSignals

/// `hearth-hub`: one process per home. For now it serves the standard
/// health service; the home graph, drivers and clients come with the hub's
/// own issue.
@main
struct HearthHubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-hub",
        abstract: "The Hearth home hub: serves clients and drivers over gRPC-compatible HTTP/2.")

    @Option(help: "TCP address to listen on, HOST:PORT (port 0 picks a free port).")
    var listen: String = "127.0.0.1:7070"

    @Option(help: "Unix-domain socket to listen on as well (for local drivers and tools).")
    var socket: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "hearth.hub")
        var targets = [try Self.parseListen(listen)]
        if let socket { targets.append(.unix(path: socket)) }

        let health = HealthService()
        let server = WireServer(listeningOn: targets, services: [health])
        let service = WireServerService(server: server, health: health, logger: logger)
        let group = ServiceGroup(
            services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
    }

    static func parseListen(_ value: String) throws -> WireServer.BindTarget {
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw ValidationError("--listen must be HOST:PORT, got \(value)")
        }
        var host = String(value[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return .tcp(host: host, port: port)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

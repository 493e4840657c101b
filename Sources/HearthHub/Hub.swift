public import Foundation
public import HearthWire
public import Logging
public import NIOCore
import HearthProto
import ServiceLifecycle

/// A whole hub: the engine, the client and driver services, health, on a ``WireServer``.
///
/// ```swift
/// var configuration = Hub.Configuration(dataDirectory: url)
/// configuration.listen = [.tcp(host: "127.0.0.1", port: 7070)]
/// configuration.tokens = ["secret": .user(UserAccess(user: "me", role: .admin, structures: nil))]
/// let hub = try await Hub.open(configuration: configuration)
/// try await hub.run()
/// ```
public final class Hub: Sendable {
    /// The hub's settings; each default is documented beside it.
    public struct Configuration: Sendable {
        public var engine: HubEngine.Configuration
        /// Where to listen. Default: 127.0.0.1:7070.
        public var listen: [WireServer.BindTarget] = [.tcp(host: "127.0.0.1", port: 7070)]
        /// Bearer tokens and who they stand for.
        public var tokens: [String: Principal] = [:]
        /// HTTP/2 and gRPC limits.
        public var wire = WireServer.Configuration.defaults
        /// How long a command waits for its driver when the caller set no deadline. Default 10 s.
        public var defaultCommandTimeout: Duration = .seconds(10)
        /// Silence after which watch streams get a progress mark. Default 5 s.
        public var progressInterval: Duration = .seconds(5)
        /// Where to serve the Prometheus page (`/metrics`) and a plain HTTP health probe (`/healthz`) over
        /// HTTP/1.1. Default: nowhere (``Hub/metricsText()`` still renders the page in process).
        public var metricsListen: WireServer.BindTarget?
        /// Driver plugins the hub starts and supervises. Default: none.
        public var plugins: [PluginSpec] = []
        /// How plugins are started, restarted and stopped.
        public var supervision = SupervisionPolicy.defaults
        /// How long a graceful shutdown waits for open calls and streams before it closes them. Default 5 s.
        public var shutdownGrace: Duration = .seconds(5)
        /// Event loops (threads) serving connections. Default nil: one per CPU the process may run on (its
        /// affinity mask, not the machine's CPU count; `Docs/Hub.md`, "Event loops").
        public var eventLoops: Int?
        /// TLS on the TCP listeners (the Unix socket stays plaintext). Default nil: plaintext HTTP/2.
        public var tls: HubTLS?
        /// The web dashboard and gRPC-Web for browsers (`Docs/Dashboard.md`).
        public var dashboard = Dashboard()

        /// The web dashboard at `/` on the hub's listeners, and gRPC-Web over HTTP/1.1 and HTTP/2, which
        /// browsers (the dashboard among them) call the hub with.
        public struct Dashboard: Sendable {
            /// Whether `/` serves the dashboard's files. gRPC-Web is served either way. Default true.
            public var enabled = true
            /// A folder to serve the files from, read on each request, instead of the copy built into the
            /// hub; for working on the dashboard. Default nil.
            public var directory: URL?
            /// Origins (`scheme://host:port`, or `*`) whose pages may call the hub across origins; the hub's
            /// own origin needs no entry. Default: none.
            public var allowedOrigins: [String] = []
            public init() {}
        }

        public init(dataDirectory: URL) {
            engine = HubEngine.Configuration(dataDirectory: dataDirectory)
        }
    }

    /// The engine, loading from ``open(configuration:logger:metrics:)`` on while the hub already listens.
    let loader: EngineLoader
    /// The engine, once it has loaded the data directory; waits while it loads.
    /// - Throws: ``HearthWire/RPCError`` UNAVAILABLE when loading failed.
    public var engine: HubEngine {
        get async throws { try await loader.engine() }
    }
    /// The gRPC health service: the whole server (`""`), `hearth.v1.HomeService` and
    /// `hearth.v1.DriverService` are `SERVING` while ``run()`` serves and `NOT_SERVING` once it drains.
    public let health: HealthService
    /// The hub's metrics registry; the executable bootstraps swift-metrics onto it.
    public let metrics: HubMetrics
    let server: WireServer
    let metricsEndpoint: MetricsEndpoint?
    let supervisor: DriverSupervisor?
    let access: AccessControl
    let listen: [WireServer.BindTarget]
    let shutdownGrace: Duration
    let logger: Logger
    /// The server's TLS settings (files resolved); nil without TLS.
    let tlsSettings: WireServer.TLS?

    private init(
        loader: EngineLoader, metrics: HubMetrics, server: WireServer, health: HealthService, metricsEndpoint: MetricsEndpoint?,
        supervisor: DriverSupervisor?, access: AccessControl, listen: [WireServer.BindTarget],
        shutdownGrace: Duration, logger: Logger, tlsSettings: WireServer.TLS?
    ) {
        self.tlsSettings = tlsSettings
        self.shutdownGrace = shutdownGrace
        self.access = access
        self.loader = loader
        self.metrics = metrics
        self.server = server
        self.health = health
        self.metricsEndpoint = metricsEndpoint
        self.supervisor = supervisor
        self.listen = listen
        self.logger = logger
    }

    /// Opens the data directory, loads the TLS certificate (making a self-signed one first if the
    /// configuration asks for TLS without files), binds the metrics port if one is configured, and prepares
    /// the services; ``run()`` starts serving.
    /// - Parameter metrics: where to count; a fresh registry by default.
    /// - Throws: ``WireTLSError`` naming a TLS file that cannot be used, or the data directory's errors.
    public static func open(
        configuration: Configuration, logger: Logger = Logger(label: "hearth.hub"), metrics: HubMetrics = HubMetrics()
    ) async throws -> Hub {
        var wire = configuration.wire
        var tlsSettings: WireServer.TLS?
        if let tls = configuration.tls {
            let (settings, selfSigned) = try tls.resolve(
                dataDirectory: configuration.engine.dataDirectory, listen: configuration.listen)
            tlsSettings = settings
            wire.tls = settings
            if let selfSigned {
                logCertificate(
                    selfSigned.certificatePath,
                    event: selfSigned.created ? "hub.tls.self_signed_created" : "hub.tls.self_signed", logger: logger)
            } else {
                logCertificate(settings.certificateChain, event: "hub.tls.certificate", logger: logger)
            }
            // Read the files now, so that a bad one stops the hub here with its name.
            try settings.validate()
        }
        if wire.observer is NoWireServerObserver { wire.observer = HubConnectionLog(logger: logger) }
        var metricsEndpoint: MetricsEndpoint?
        if let target = configuration.metricsListen { metricsEndpoint = try await MetricsEndpoint.bind(target) }
        // The graph loads while the hub starts listening; calls wait for it (`Docs/Hub.md`, "Cold start").
        let engineConfiguration = configuration.engine
        let loader = EngineLoader {
            try await HubEngine.open(configuration: engineConfiguration, logger: logger, metrics: metrics)
        }
        let sessions = DriverSessions()
        let access = AccessControl(tokens: configuration.tokens)
        let supervisor =
            configuration.plugins.isEmpty
            ? nil
            : DriverSupervisor(
                specs: configuration.plugins, policy: configuration.supervision, tokens: access.launchTokens,
                metrics: metrics, logger: logger)
        var watch = WatchStream.Configuration()
        watch.progressInterval = configuration.progressInterval
        let health = HealthService()
        let services: [any WireService] = [
            HomeServiceHandler(
                loader: loader, metrics: metrics, sessions: sessions, access: access, supervisor: supervisor,
                driverIDs: Set(configuration.tokens.values.compactMap(\.driverID)), watchConfiguration: watch,
                defaultCommandTimeout: configuration.defaultCommandTimeout),
            DriverServiceHandler(loader: loader, sessions: sessions, access: access, logger: logger),
            health,
            // Server reflection (grpc.reflection.v1 and v1alpha) over every file the hub serves, so that
            // `grpcurl -plaintext HOST:PORT list` and `describe` work without the .proto files.
            try ReflectionService(fileDescriptorSets: [HearthV1Descriptors.serializedFileDescriptorSet]),
        ]
        if wire.callGate == nil {
            wire.callGate = { path, metadata in access.gate(path: path, metadata: metadata) }
        }
        let hubReference = HubReference()
        let dashboard = DashboardResponder(
            directory: configuration.dashboard.directory, enabled: configuration.dashboard.enabled, access: access,
            metrics: { await hubReference.hub?.metricsText() ?? "" })
        wire.web = WireServer.Configuration.Web(
            allowedOrigins: configuration.dashboard.allowedOrigins, responder: { await dashboard.respond($0) })
        let loops = EventLoops.group(threads: configuration.eventLoops ?? EventLoops.allowedCPUs)
        let server = WireServer(
            listeningOn: configuration.listen, services: services, configuration: wire, eventLoopGroup: loops)
        let hub = Hub(
            loader: loader, metrics: metrics, server: server, health: health, metricsEndpoint: metricsEndpoint, supervisor: supervisor,
            access: access, listen: configuration.listen, shutdownGrace: configuration.shutdownGrace, logger: logger,
            tlsSettings: tlsSettings)
        hubReference.hub = hub
        return hub
    }

    /// Serves until cancelled, or until a graceful shutdown (SIGTERM through ServiceLifecycle) drains it.
    /// Supervised plugins start once the server listens and are stopped (SIGTERM) when it shuts down.
    public func run() async throws {
        enum Part { case engine, metrics, server, supervisor, deadline, trimmer }
        let draining = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Part.self) { group in
            group.addTask {
                let started = ContinuousClock.now
                let engine = try await self.loader.engineOrError()
                let figures = await engine.statistics()
                // Loading decoded every row on every core: give what those threads' arenas freed back.
                MemoryTrimmer.trim()
                self.logger.info(
                    "hub.loaded",
                    metadata: [
                        "hub.epoch": "\(engine.epoch)", "hub.devices": "\(figures.devices)",
                        "hub.revision": "\(figures.revision)", "hub.load_wait": "\(ContinuousClock.now - started)",
                    ])
                // Healthy once the graph is in memory (set before the server drains, never after).
                if !self.server.isShuttingDown {
                    for service in [HomeMethods.service, DriverMethods.service] { self.health.setStatus(.serving, for: service) }
                }
                try await engine.run()
                return .engine
            }
            if let endpoint = metricsEndpoint {
                group.addTask {
                    try await endpoint.run { await self.respond(to: $0) }
                    return .metrics
                }
            }
            group.addTask {
                try await withGracefulShutdownHandler {
                    try await self.server.run()
                } onGracefulShutdown: {
                    self.health.markAllNotServing()
                    self.supervisor?.shutdown()
                    self.server.beginGracefulShutdown()
                    draining.continuation.finish()
                }
                self.health.markAllNotServing()
                return .server
            }
            group.addTask {
                // Streams that never end by themselves (watches, driver sessions) get `shutdownGrace` to
                // close after the GOAWAY; then the server stops at once. Clients resume after the restart.
                for await _ in draining.stream {}
                guard !Task.isCancelled else { return .deadline }
                try? await Task.sleep(for: self.shutdownGrace)
                return .deadline
            }
            group.addTask {
                await MemoryTrimmer().run(server: self.server)
                return .trimmer
            }
            if let supervisor {
                group.addTask {
                    await supervisor.run(hub: try await self.pluginAddress())
                    return .supervisor
                }
            }
            // The server ends first (shutdown or failure); then the engine commits what is pending.
            while let part = try await group.next(), part != .server, part != .deadline {}
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// The address supervised plugins connect to: the first Unix socket the hub listens on, else its first
    /// TCP address (a wildcard address as loopback).
    func pluginAddress() async throws -> String {
        for case .unix(let path) in listen { return "unix:\(path)" }
        let addresses = try await listeningAddresses()
        guard let address = addresses.first, let port = address.port else {
            throw HubError(.unavailable, "the hub listens nowhere its plugins could connect to")
        }
        let host: String =
            switch address.ipAddress {
            case nil, "0.0.0.0": "127.0.0.1"
            case "::": "[::1]"
            case let ip? where ip.contains(":"): "[\(ip)]"
            case let ip?: ip
            }
        return "\(host):\(port)"
    }

    /// The addresses the hub listens on, once bound.
    public func listeningAddresses() async throws -> [NIOCore.SocketAddress] {
        try await server.listeningAddresses()
    }
}

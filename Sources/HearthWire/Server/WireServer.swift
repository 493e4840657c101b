public import NIOCore
public import NIOPosix
internal import NIOHTTP1
import NIOSSL
import Synchronization

/// A gRPC-compatible HTTP/2 server on libnghttp2.
///
/// It listens on TCP and Unix-domain sockets (cleartext HTTP/2 with prior
/// knowledge, or TLS with ALPN `h2` on TCP when ``Configuration/tls`` is
/// set), routes each call by its `:path` to a registered handler, and runs
/// handlers in its own task group.
///
/// ```swift
/// let server = WireServer(
///     listeningOn: [.tcp(host: "127.0.0.1", port: 7070), .unix(path: "/run/hearth/hub.sock")],
///     services: [HealthService(), MyService()])
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { try await server.run() }
///     print(try await server.listeningAddresses())
/// }
/// ```
///
/// Cancelling ``run()`` stops at once; ``beginGracefulShutdown()`` stops
/// accepting, lets calls in flight finish, then returns from ``run()``.
public final class WireServer: Sendable {
    /// Server settings; each default is documented beside it.
    public struct Configuration: Sendable {
        /// Limits, flow control, keepalive and flood protection.
        public var connection = ConnectionConfiguration()
        /// Handlers allowed to run at once across all connections; streams
        /// over the cap are refused (clients see UNAVAILABLE). Default 4096.
        public var maxRunningHandlers = 4096
        /// Where handlers run.
        public enum HandlerExecution: Sendable {
            /// On the event loop of their connection (the default): no thread
            /// hop between a handler and its socket. Handlers must not block
            /// or compute for long.
            case eventLoop
            /// On Swift's global concurrent executor.
            case globalExecutor
        }
        /// Where handlers run. Default ``HandlerExecution/eventLoop``.
        public var handlerExecution = HandlerExecution.eventLoop
        /// Checks a call's path and metadata at HEADERS, before any message is buffered or a handler
        /// slot taken; a returned status refuses the call at once (trailers-only). Default nil: every
        /// call is dispatched and its handler checks its own credentials.
        ///
        /// Runs on the connection's event loop: it must be quick and must not block.
        public var callGate: (@Sendable (_ path: String, _ metadata: Metadata) -> Status?)?
        /// Whether responses are compressed when the handler does not choose
        /// (``ServerContext/setResponseEncoding(_:)``). Default ``ResponseCompression/off``: responses go
        /// uncompressed unless a handler asks, as gRPC servers do by default; request encodings are taken
        /// whatever this says (``ConnectionConfiguration/Compression``).
        public var responseCompression = ResponseCompression.off
        /// Time between the GOAWAY notice and the final GOAWAY of a graceful
        /// shutdown, for requests already in flight to arrive. Default 1 s.
        public var shutdownNoticeGrace: Duration = .seconds(1)
        /// TLS on every TCP listener (Unix-domain sockets stay plaintext). Default nil: plaintext HTTP/2
        /// with prior knowledge everywhere.
        public var tls: TLS?
        /// HTTP/1.1 beside HTTP/2 on every listener, for gRPC-Web and pages. Default nil: HTTP/2 only.
        public var web: Web?
        /// Told about connections closed before HTTP/2 started (failed TLS handshakes, ALPN other than
        /// `h2`). Default: ignores them.
        public var observer: any WireServerObserver = NoWireServerObserver()
        public init() {}
        /// The defaults.
        public static var defaults: Configuration { Configuration() }
    }

    /// Where to listen.
    public enum BindTarget: Sendable, Hashable {
        /// A TCP host and port; port 0 lets the system choose.
        case tcp(host: String, port: Int)
        /// A Unix-domain socket; an existing socket file is replaced.
        case unix(path: String)
    }

    /// Sent through each connection's pipeline to start a graceful shutdown.
    struct GracefulShutdownEvent: Sendable {}

    private struct State {
        var addresses: [SocketAddress]?
        var waiters: [CheckedContinuation<[SocketAddress], any Error>] = []
        var listeners: [any Channel] = []
        var connections: [ObjectIdentifier: any Channel] = [:]
        var shuttingDown = false
        var failure: (any Error)?
    }

    private let targets: [BindTarget]
    private let router: ServiceRouter
    private let configuration: Configuration
    private let group: MultiThreadedEventLoopGroup
    private let admission: CallAdmission
    private let budget: WireBudget
    private let state = Mutex(State())
    /// The TLS context new TCP connections take; nil without ``Configuration/tls``.
    let tlsContext: ServerTLSContext?

    /// Creates a server; nothing happens until ``run()``.
    /// - Parameters:
    ///   - targets: the addresses to listen on.
    ///   - services: the services to serve; a later service's method replaces
    ///     an earlier one with the same path.
    ///   - configuration: settings.
    ///   - eventLoopGroup: the loops that run connections.
    public init(
        listeningOn targets: [BindTarget], services: [any WireService],
        configuration: Configuration = .defaults,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) {
        self.targets = targets
        self.router = ServiceRouter(services: services)
        self.configuration = configuration
        self.group = eventLoopGroup
        self.admission = CallAdmission(limit: configuration.maxRunningHandlers)
        self.budget = WireBudget(limits: configuration.connection.budgets)
        self.tlsContext = configuration.tls.map { ServerTLSContext(configuration: $0, http1: configuration.web != nil) }
    }

    /// What the server holds and has refused now, across its connections: live sessions, buffered
    /// bytes, budget refusals. Cheap to read (atomics).
    public var statistics: Statistics { budget.statistics }

    /// The bound addresses, once ``run()`` has bound them.
    /// - Throws: the bind error if binding failed.
    public func listeningAddresses() async throws -> [SocketAddress] {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<[SocketAddress], any Error>? = state.withLock { s in
                if let failure = s.failure { return .failure(failure) }
                if let addresses = s.addresses { return .success(addresses) }
                s.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// Whether a graceful shutdown has begun.
    public var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }

    /// Handlers running now, across connections.
    public var runningHandlers: Int { admission.current }

    /// Connections open now, across listeners.
    public var openConnections: Int { state.withLock { $0.connections.count } }

    /// Binds, serves until cancelled or until a graceful shutdown completes.
    /// - Throws: a bind error, or a ``WireTLSError`` naming a TLS file that cannot be used.
    public func run() async throws {
        let listeners: [NIOAsyncChannel<ServerConnection, Never>]
        do {
            _ = try tlsContext?.context()
            listeners = try await bindAll()
        } catch {
            let waiters = state.withLock { s in
                s.failure = error
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in waiters { waiter.resume(throwing: error) }
            throw error
        }
        let (waiters, addresses, stopNow) = state.withLock { s in
            s.listeners = listeners.map { $0.channel }
            s.addresses = listeners.compactMap { $0.channel.localAddress }
            defer { s.waiters = [] }
            return (s.waiters, s.addresses!, s.shuttingDown)
        }
        for waiter in waiters { waiter.resume(returning: addresses) }
        if stopNow { beginGracefulShutdown() }
        // A connection accepted while the listener was closing may sit in its buffer, never served: close
        // whatever is left, or its peer would wait for an answer that never comes.
        defer {
            for connection in state.withLock({ Array($0.connections.values) }) { connection.close(promise: nil) }
        }

        try await withThrowingDiscardingTaskGroup { group in
            for listener in listeners {
                group.addTask {
                    try await listener.executeThenClose { inbound in
                        try await withThrowingDiscardingTaskGroup { connections in
                            do {
                                for try await connection in inbound {
                                    connections.addTask { await self.serve(connection) }
                                }
                            } catch where self.isShuttingDown {
                                // Closing the listener ends accepting; the
                                // connections still drain below.
                            }
                        }
                    }
                }
            }
        }
    }

    /// Stops accepting connections and sends every connection the double
    /// GOAWAY: calls in flight finish, new calls get UNAVAILABLE (REFUSED_STREAM),
    /// and ``run()`` returns once all connections have closed.
    public func beginGracefulShutdown() {
        let (listeners, connections) = state.withLock { s in
            s.shuttingDown = true
            return (s.listeners, Array(s.connections.values))
        }
        for listener in listeners { listener.close(promise: nil) }
        for connection in connections {
            connection.pipeline.fireUserInboundEventTriggered(GracefulShutdownEvent())
        }
    }
}

// MARK: - Binding and serving

extension WireServer {
    /// One accepted connection and what runs its calls.
    struct ServerConnection: Sendable {
        let channel: any Channel
        let calls: CallSpawner
    }

    private func bindAll() async throws -> [NIOAsyncChannel<ServerConnection, Never>] {
        var listeners: [NIOAsyncChannel<ServerConnection, Never>] = []
        do {
            for target in targets {
                let bootstrap = ServerBootstrap(group: group)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .serverChannelOption(.backlog, value: 256)
                    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                    .childChannelOption(.allowRemoteHalfClosure, value: false)
                let tls: Bool
                if case .tcp = target { tls = tlsContext != nil } else { tls = false }
                let initializer: @Sendable (any Channel) -> EventLoopFuture<ServerConnection> = { channel in
                    self.initialize(channel, tls: tls)
                }
                switch target {
                case .tcp(let host, let port):
                    listeners.append(try await bootstrap.bind(host: host, port: port, childChannelInitializer: initializer))
                case .unix(let path):
                    listeners.append(
                        try await bootstrap.bind(
                            unixDomainSocketPath: path, cleanupExistingSocketFile: true,
                            childChannelInitializer: initializer))
                }
            }
        } catch {
            for listener in listeners { try? await listener.channel.close() }
            throw error
        }
        return listeners
    }

    private func initialize(_ channel: any Channel, tls: Bool) -> EventLoopFuture<ServerConnection> {
        channel.eventLoop.makeCompletedFuture {
            if tls, let tlsContext {
                // The context current now; a later reload leaves this connection's alone.
                try channel.pipeline.syncOperations.addHandlers(
                    NIOSSLServerHandler(context: try tlsContext.context()),
                    ServerTLSGate(
                        timeout: tlsContext.configuration.handshakeTimeout, observer: configuration.observer,
                        acceptsHTTP1: configuration.web != nil))
            }
            let executor: EventLoopTaskExecutor? =
                switch configuration.handlerExecution {
                case .eventLoop: EventLoopTaskExecutor(eventLoop: channel.eventLoop)
                case .globalExecutor: nil
                }
            let calls = CallSpawner(executor: executor)
            let starter = CallStart(
                configuration: configuration, router: router, admission: admission,
                budget: ConnectionBudget(server: budget))
            if let web = configuration.web {
                let sniffer = HTTPVersionSniffer(timeout: .seconds(10)) { version, pipeline in
                    switch version {
                    case .http2:
                        try pipeline.addHandler(ServerConnectionHandler(starter: starter, calls: calls))
                    case .http1:
                        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                        try pipeline.addHandler(WebConnectionHandler(starter: starter, web: web, calls: calls))
                    }
                }
                try channel.pipeline.syncOperations.addHandler(sniffer)
            } else {
                try channel.pipeline.syncOperations.addHandler(ServerConnectionHandler(starter: starter, calls: calls))
            }
            let id = ObjectIdentifier(channel)
            let shuttingDown = state.withLock { s in
                s.connections[id] = channel
                return s.shuttingDown
            }
            if shuttingDown { channel.pipeline.fireUserInboundEventTriggered(GracefulShutdownEvent()) }
            channel.closeFuture.whenComplete { _ in
                _ = self.state.withLock { $0.connections.removeValue(forKey: id) }
                // A connection closed before its first bytes chose a protocol never had a handler to end
                // its calls: end them here, or its serving task (and the channel) would wait forever.
                calls.finish()
            }
            return ServerConnection(channel: channel, calls: calls)
        }
    }

    private func serve(_ connection: ServerConnection) async {
        await withTaskCancellationHandler {
            await connection.calls.waitUntilDone()
        } onCancel: {
            connection.channel.close(promise: nil)
        }
    }
}

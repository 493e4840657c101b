public import NIOCore
public import NIOPosix
import NIOSSL
import Synchronization

/// A gRPC-compatible HTTP/2 client on libnghttp2.
///
/// It keeps one connection to its target, opened on the first call and
/// opened again on the next call after it is lost or the server sent
/// GOAWAY. Calls are multiplexed on it as HTTP/2 streams. With
/// ``Configuration/tls`` set it speaks TLS (ALPN `h2`) on TCP targets.
///
/// ```swift
/// let client = WireClient(target: .tcp(host: "127.0.0.1", port: 7070))
/// defer { client.close() }
/// let reply = try await client.unary(Echo.get, request: request,
///                                    options: CallOptions(timeout: .seconds(5)))
/// ```
public final class WireClient: Sendable {
    /// Where to connect.
    public enum Target: Sendable, Hashable, CustomStringConvertible {
        case tcp(host: String, port: Int)
        case unix(path: String)

        public var description: String {
            switch self {
            case .tcp(let host, let port): "\(host):\(port)"
            case .unix(let path): "unix:\(path)"
            }
        }

        /// Parses `unix:/path`, `/path` (a socket), `host:port` or `[v6]:port`; nil when malformed.
        public init?(address: String) {
            if address.hasPrefix("unix:") {
                let path = String(address.dropFirst(5))
                guard !path.isEmpty else { return nil }
                self = .unix(path: path)
                return
            }
            if address.hasPrefix("/") {
                self = .unix(path: address)
                return
            }
            guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
                (1...65535).contains(port)
            else { return nil }
            var host = String(address[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { return nil }
            self = .tcp(host: host, port: port)
        }
    }

    /// Client settings; each default is documented beside it.
    public struct Configuration: Sendable {
        /// Limits, flow control, keepalive and flood protection.
        public var connection = ConnectionConfiguration()
        /// How long to wait for a connection. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// TLS for TCP targets. Default nil: plaintext HTTP/2 with prior knowledge. Unix-domain socket
        /// targets are always plaintext.
        public var tls: TLS?
        public init() {}
        public static var defaults: Configuration { Configuration() }
    }

    struct Connection: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<ClientConnectionHandler>
        let id: ObjectIdentifier
    }

    private enum State {
        case idle
        case connecting([CheckedContinuation<Connection, any Error>])
        case ready(Connection)
        case closed
    }

    /// The target this client connects to.
    public let target: Target
    let configuration: Configuration
    private let group: MultiThreadedEventLoopGroup
    private let state = Mutex(State.idle)
    /// The TLS context every connection uses, built once; nil without TLS (or for a Unix socket).
    private let tlsContext: Result<NIOSSLContext, WireTLSError>?

    /// Creates a client; no connection is made until the first call.
    public init(
        target: Target, configuration: Configuration = .defaults,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) {
        self.target = target
        self.configuration = configuration
        self.group = eventLoopGroup
        if case .tcp = target, let tls = configuration.tls {
            tlsContext = Result { () throws(WireTLSError) in try TLSContextFactory.clientContext(tls) }
        } else {
            tlsContext = nil
        }
    }

    /// Closes the connection once calls in flight finish; later calls fail
    /// with UNAVAILABLE.
    public func close() {
        let (connection, waiters) = state.withLock { s -> (Connection?, [CheckedContinuation<Connection, any Error>]) in
            defer { s = .closed }
            switch s {
            case .ready(let connection): return (connection, [])
            // Calls waiting for a connection fail now; the connection, when it comes, is closed (`connected`).
            case .connecting(let waiters): return (nil, waiters)
            case .idle, .closed: return (nil, [])
            }
        }
        for waiter in waiters { waiter.resume(throwing: RPCError(code: .unavailable, message: "client is closed")) }
        guard let connection else { return }
        connection.channel.eventLoop.execute { connection.handler.value.closeGracefully() }
    }

    /// A connection for a new call, connecting if needed.
    func connection() async throws -> Connection {
        enum Step { case use(Connection), wait, connect, closed }
        // Fast path without a continuation.
        let fast: Connection? = state.withLock { s in
            if case .ready(let connection) = s { return connection }
            return nil
        }
        if let fast { return fast }
        return try await withCheckedThrowingContinuation { continuation in
            let step: Step = state.withLock { s in
                switch s {
                case .ready(let connection): return .use(connection)
                case .closed: return .closed
                case .connecting(var waiters):
                    waiters.append(continuation)
                    s = .connecting(waiters)
                    return .wait
                case .idle:
                    s = .connecting([continuation])
                    return .connect
                }
            }
            switch step {
            case .use(let connection): continuation.resume(returning: connection)
            case .closed: continuation.resume(throwing: RPCError(code: .unavailable, message: "client is closed"))
            case .wait: break
            case .connect: connect()
            }
        }
    }

    private func connect() {
        let target = self.target
        let configuration = self.configuration
        // Unix socket paths are not valid authorities; gRPC uses "localhost".
        let authority: String =
            switch target {
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .unix: "localhost"
            }
        let tls: (context: NIOSSLContext, serverName: String?)?
        switch tlsContext {
        case nil:
            tls = nil
        case .failure(let error):
            connected(.failure(RPCError(code: .unavailable, message: "TLS settings for \(target): \(error)")))
            return
        case .success(let context):
            tls = (context, Self.serverName(configuration.tls?.serverName, target: target))
        }
        let loop = group.next()
        let handshake = tls.map { _ in loop.makePromise(of: Void.self) }
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.nanoseconds(configuration.connectTimeout.nanosecondsClamped))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let id = ObjectIdentifier(channel)
                    if let tls, let handshake {
                        try channel.pipeline.syncOperations.addHandlers(
                            try NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverName),
                            ClientTLSGate(handshake: handshake, target: target.description))
                    }
                    let handler = ClientConnectionHandler(
                        configuration: configuration.connection, authority: authority,
                        scheme: tls == nil ? "http" : "https"
                    ) { [weak self] in self?.connectionUnusable(id) }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        let connecting: EventLoopFuture<any Channel> =
            switch target {
            case .tcp(let host, let port):
                // An IP address is connected to directly. A host name goes through NIO's resolver, which runs
                // getaddrinfo on a Dispatch queue: when Dispatch's threads are busy (seen: a loaded 2-core
                // machine under ASan), that wait counts against the connect timeout even on loopback.
                if let address = try? SocketAddress(ipAddress: host, port: port) {
                    bootstrap.connect(to: address)
                } else {
                    bootstrap.connect(host: host, port: port)
                }
            case .unix(let path): bootstrap.connect(unixDomainSocketPath: path)
            }
        connecting.whenFailure { handshake?.fail($0) }
        // Over TLS the connection is ready once the handshake agreed on h2, so that a server that is not TLS,
        // a certificate that does not verify or a refused ALPN fails the first call with a clear reason.
        let future = connecting.flatMap { channel -> EventLoopFuture<any Channel> in
            guard let handshake else { return loop.makeSucceededFuture(channel) }
            return handshake.futureResult.map { channel }
        }
        future.whenComplete { result in
            switch result {
            case .success(let channel):
                let taken = Self.connection(on: channel, target: target)
                if case .failure = taken { channel.close(promise: nil) }
                self.connected(taken)
            case .failure(let error as RPCError):
                self.connected(.failure(error))
            case .failure(let error):
                self.connected(
                    .failure(RPCError(code: .unavailable, message: "could not connect to \(target): \(error)")))
            }
        }
    }

    /// The connection a finished connect hands to calls, or why there is none. Called on the channel's loop.
    ///
    /// The connection may be gone already (the server closed it, or sent GOAWAY, as it opened): when the
    /// connect completes before its callback is attached, the callback runs a loop tick later. Its handler has
    /// then left the pipeline, or is no longer usable, and the calls waiting for it fail like a refusal. A
    /// close after this check reaches ``connectionUnusable(_:)``, which runs on the same loop.
    static func connection(on channel: any Channel, target: Target) -> Result<Connection, RPCError> {
        let handler = try? channel.pipeline.syncOperations.handler(type: ClientConnectionHandler.self)
        guard let handler, handler.usable else {
            let why = handler?.closedMessage ?? "connection closed"
            return .failure(RPCError(code: .unavailable, message: "could not connect to \(target): \(why)"))
        }
        return .success(
            Connection(
                channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop),
                id: ObjectIdentifier(channel)))
    }

    /// The name for SNI and verification: the one configured, else the target's host unless it is an IP
    /// address (checked against the certificate's IP addresses, and never sent in SNI).
    static func serverName(_ configured: String?, target: Target) -> String? {
        if let configured { return configured }
        guard case .tcp(let host, _) = target else { return nil }
        return (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }

    private func connected(_ result: Result<Connection, RPCError>) {
        let waiters: [CheckedContinuation<Connection, any Error>] = state.withLock { s in
            guard case .connecting(let waiters) = s else { return [] }
            switch result {
            case .success(let connection): s = .ready(connection)
            case .failure: s = .idle
            }
            return waiters
        }
        if case .success(let connection) = result, waiters.isEmpty {
            // Closed while connecting.
            connection.channel.close(promise: nil)
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }

    private func connectionUnusable(_ id: ObjectIdentifier) {
        state.withLock { s in
            if case .ready(let connection) = s, connection.id == id { s = .idle }
        }
    }
}

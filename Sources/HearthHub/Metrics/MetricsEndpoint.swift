import HearthWire
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 listener for Prometheus scrapes and plain health probes, apart from the gRPC port.
///
/// Prometheus and most load balancers speak HTTP/1.1, not gRPC, so the hub answers them on a port of
/// their own (`metrics_listen` in the config). It serves:
/// - `GET /metrics`: the Prometheus text page;
/// - `GET /healthz`: `200 ok` while the hub serves; `503` once it is shutting down, or while its storage
///   refuses writes (the body says which and since when);
/// - anything else: `404`, or `405` for a method other than GET/HEAD.
///
/// It is bound by ``Hub/open(configuration:logger:)`` (so a taken port fails at start, before anything
/// else happens) and served by ``Hub/run()``.
struct MetricsEndpoint: Sendable {
    struct Response: Sendable {
        var status: HTTPResponseStatus
        var contentType = "text/plain; charset=utf-8"
        var body: String
    }
    typealias Responder = @Sendable (_ path: String) async -> Response

    private typealias Listener = NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>

    private let listener: Listener
    let address: SocketAddress?

    /// Binds the listener.
    static func bind(_ target: WireServer.BindTarget) async throws -> MetricsEndpoint {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>> = {
            channel in
            channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                try NIOAsyncChannel(wrappingChannelSynchronously: channel)
            }
        }
        let listener: Listener
        switch target {
        case .tcp(let host, let port):
            listener = try await bootstrap.bind(host: host, port: port, childChannelInitializer: initializer)
        case .unix(let path):
            listener = try await bootstrap.bind(
                unixDomainSocketPath: path, cleanupExistingSocketFile: true, childChannelInitializer: initializer)
        }
        return MetricsEndpoint(listener: listener, address: listener.channel.localAddress)
    }

    /// Serves until cancelled or ``close()``d, then returns (a stop is not a failure); each connection in its
    /// own task, one request at a time.
    func run(_ respond: @escaping Responder) async throws {
        do {
            try await listener.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask { try? await Self.serve(connection, respond) }
                    }
                }
            }
        } catch is CancellationError {
            // Cancelled by the hub's stop: hearth-hub exited 1 on SIGTERM while this threw.
        }
    }

    /// Stops accepting; connections in progress finish their request.
    func close() {
        listener.channel.close(promise: nil)
    }

    private static func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, _ respond: Responder
    ) async throws {
        try await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let h): head = h
                case .body: continue  // requests carry no body we use
                case .end:
                    guard let request = head else { continue }
                    let response: Response
                    if request.method == .GET || request.method == .HEAD {
                        response = await respond(String(request.uri.prefix { $0 != "?" }))
                    } else {
                        response = Response(status: .methodNotAllowed, body: "only GET\n")
                    }
                    var body = ByteBuffer(string: response.body)
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: response.contentType)
                    headers.add(name: "Content-Length", value: "\(body.readableBytes)")
                    if !request.isKeepAlive { headers.add(name: "Connection", value: "close") }
                    try await outbound.write(.head(HTTPResponseHead(version: request.version, status: response.status, headers: headers)))
                    if request.method == .HEAD { body.clear() }
                    if body.readableBytes > 0 { try await outbound.write(.body(.byteBuffer(body))) }
                    try await outbound.write(.end(nil))
                    if !request.isKeepAlive { return }
                    head = nil
                }
            }
        }
    }
}

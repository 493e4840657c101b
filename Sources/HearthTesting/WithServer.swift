public import HearthWire
import NIOCore

/// Runs `body` with a server listening on an OS-chosen loopback port and a
/// client connected to it; both are shut down when `body` returns.
///
/// ```swift
/// try await withWireServer(services: [EchoService()]) { server, client in
///     let reply = try await client.unary(Echo.get, request: .with { $0.text = "hi" })
/// }
/// ```
public func withWireServer<Result: Sendable>(
    services: [any WireService],
    configuration: WireServer.Configuration = .defaults,
    clientConfiguration: WireClient.Configuration = .defaults,
    unixSocket: String? = nil,
    _ body: (WireServer, WireClient) async throws -> Result
) async throws -> Result {
    let target: WireServer.BindTarget = unixSocket.map { .unix(path: $0) } ?? .tcp(host: "127.0.0.1", port: 0)
    let server = WireServer(listeningOn: [target], services: services, configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        let address = try await server.listeningAddresses()[0]
        let clientTarget: WireClient.Target =
            if let unixSocket { .unix(path: unixSocket) } else { .tcp(host: "127.0.0.1", port: address.port!) }
        let client = WireClient(target: clientTarget, configuration: clientConfiguration)
        do {
            let result = try await body(server, client)
            client.close()
            group.cancelAll()
            return result
        } catch {
            client.close()
            group.cancelAll()
            throw error
        }
    }
}

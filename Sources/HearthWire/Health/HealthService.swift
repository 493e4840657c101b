import SwiftProtobuf
import Synchronization

/// The standard gRPC health service (`grpc.health.v1.Health`), so that stock
/// probes can ask whether the server, or one of its services, serves.
///
/// The empty service name stands for the whole server and is `SERVING` from
/// the start. Other names are unknown until ``setStatus(_:for:)`` names them.
///
/// ```swift
/// let health = HealthService()
/// health.setStatus(.serving, for: "hearth.v1.Home")
/// let server = WireServer(listeningOn: [...], services: [health, ...])
/// ```
public final class HealthService: WireService, Sendable {
    /// A service's health.
    public enum ServingStatus: Sendable, Hashable {
        case serving
        case notServing

        var wire: Grpc_Health_V1_HealthCheckResponse.ServingStatus {
            switch self {
            case .serving: .serving
            case .notServing: .notServing
            }
        }
    }

    private struct State {
        var statuses: [String: ServingStatus] = ["": .serving]
        var watchers: [Int: (service: String, continuation: AsyncStream<Grpc_Health_V1_HealthCheckResponse.ServingStatus>.Continuation)] = [:]
        var nextWatcher = 0
    }

    private let state = Mutex(State())

    /// The methods, for clients.
    public static let check = MethodDescriptor<Grpc_Health_V1_HealthCheckRequest, Grpc_Health_V1_HealthCheckResponse>(
        service: "grpc.health.v1.Health", method: "Check", kind: .unary)
    public static let watch = MethodDescriptor<Grpc_Health_V1_HealthCheckRequest, Grpc_Health_V1_HealthCheckResponse>(
        service: "grpc.health.v1.Health", method: "Watch", kind: .serverStreaming)

    public init() {}

    /// Sets a service's status and tells its watchers.
    public func setStatus(_ status: ServingStatus, for service: String) {
        let watchers = state.withLock { s in
            s.statuses[service] = status
            return s.watchers.values.filter { $0.service == service }.map(\.continuation)
        }
        for watcher in watchers { watcher.yield(status.wire) }
    }

    /// Marks every service not serving (at the start of a shutdown).
    public func markAllNotServing() {
        let names = state.withLock { Array($0.statuses.keys) }
        for name in names { setStatus(.notServing, for: name) }
    }

    /// Whether a service is `SERVING` now (false for a service never named).
    public func isServing(_ service: String) -> Bool {
        state.withLock { $0.statuses[service] == .serving }
    }

    private func current(_ service: String) -> Grpc_Health_V1_HealthCheckResponse.ServingStatus? {
        state.withLock { $0.statuses[service]?.wire }
    }

    public func register(into router: inout ServiceRouter) {
        router.registerUnary(Self.check) { [self] request, _ in
            guard let status = current(request.service) else {
                throw RPCError(code: .notFound, message: "unknown service \(request.service)")
            }
            return .with { $0.status = status }
        }
        router.registerServerStreaming(Self.watch) { [self] request, writer, _ in
            let (updates, continuation) = AsyncStream.makeStream(
                of: Grpc_Health_V1_HealthCheckResponse.ServingStatus.self, bufferingPolicy: .bufferingNewest(1))
            let id = state.withLock { s in
                defer { s.nextWatcher += 1 }
                s.watchers[s.nextWatcher] = (request.service, continuation)
                return s.nextWatcher
            }
            defer { _ = state.withLock { $0.watchers.removeValue(forKey: id) } }
            try await writer.write(.with { $0.status = current(request.service) ?? .serviceUnknown })
            for await status in updates {
                try await writer.write(.with { $0.status = status })
            }
        }
    }
}

import Foundation
import HearthHub
import HearthProto
import HearthWire
import NIOCore
import SwiftProtobuf
import Testing

/// Tokens every test hub accepts.
enum Tokens {
    /// The camera driver's (hearth-driver-camera, `Drivers/Camera*Tests.swift`).
    static let camera = "camera-token"
    static let admin = "admin-token"
    static let viewer = "viewer-token"
    static let member = "member-token"
    static let lights = "lights-token"
    static let python = "python-token"
    static let climate = "climate-token"
    static let vendor = "vendor-token"

    static var all: [String: Principal] {
        [
            camera: .driver(id: "camera"),
            admin: .user(UserAccess(user: "admin", role: .admin, structures: nil)),
            viewer: .user(UserAccess(user: "viewer", role: .viewer, structures: ["home"])),
            member: .user(UserAccess(user: "member", role: .member, structures: ["home"])),
            lights: .driver(id: "lights"),
            python: .driver(id: "python"),
            climate: .driver(id: "climate"),
            vendor: .driver(id: "vendor"),
        ]
    }
}

/// An executable of this package, built beside the test bundle (`swift build --build-tests` builds them all).
func builtProduct(_ name: String) -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
}

/// A fresh data directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-hub-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// A real hub on 127.0.0.1 port 0 over `directory`, and a client connected to it; stopped afterwards.
func withHub<T: Sendable>(
    directory: URL, configure: (inout Hub.Configuration) -> Void = { _ in },
    _ body: (Hub, HubClient) async throws -> T
) async throws -> T {
    var configuration = Hub.Configuration(dataDirectory: directory)
    configuration.listen = [.tcp(host: "127.0.0.1", port: 0)]
    configuration.tokens = Tokens.all
    configure(&configuration)
    let hub = try await Hub.open(configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await hub.run() }
        let port = try await hub.listeningAddresses()[0].port!
        let client = HubClient(WireClient(target: .tcp(host: "127.0.0.1", port: port)), port: port)
        defer {
            client.wire.close()
            group.cancelAll()
        }
        // A fresh hub listens first and publishes its configured structures with its first durable commit.
        // Until then GetHub reports revision 0, and a test that watches "from the revision GetHub reported"
        // would ask for a snapshot (0 means from scratch), whose devices come as whole-device changes, not
        // the trait changes it waits for: on a loaded CI run that ended in a 20 s DEADLINE_EXCEEDED.
        // Asked in process: a hub may serve TLS only, and one that cannot load its data has nothing to wait for.
        _ = try await eventually { () -> Bool? in
            guard let engine = try? await hub.engine else { return true }
            return await engine.info().revision > 0 ? true : nil
        }
        return try await body(hub, client)
    }
}

/// Calls with a token.
struct HubClient: Sendable {
    let wire: WireClient
    let port: Int

    init(_ wire: WireClient, port: Int) {
        self.wire = wire
        self.port = port
    }

    static func options(_ token: String?, timeout: Duration? = .seconds(20)) -> CallOptions {
        var metadata = Metadata()
        if let token { metadata.add("authorization", "Bearer \(token)") }
        return CallOptions(timeout: timeout, metadata: metadata)
    }

    func call<Request, Response: Sendable>(
        _ method: MethodDescriptor<Request, Response>, _ request: Request, token: String? = Tokens.admin,
        timeout: Duration? = .seconds(20)
    ) async throws -> Response {
        try await wire.unary(method, request: request, options: Self.options(token, timeout: timeout))
    }

    /// Reads a watch until `until` says stop (or `limit` responses), bounded in time.
    func watch(
        _ request: Hearth_V1_WatchRequest, token: String = Tokens.admin, limit: Int = 1000,
        until: @escaping @Sendable ([Hearth_V1_WatchResponse]) -> Bool
    ) async throws -> [Hearth_V1_WatchResponse] {
        try await wire.serverStreaming(HomeMethods.watch, request: request, options: Self.options(token)) { responses in
            var seen: [Hearth_V1_WatchResponse] = []
            for try await response in responses {
                seen.append(response)
                if until(seen) || seen.count >= limit { break }
            }
            return seen
        }
    }
}

extension Hearth_V1_WatchRequest {
    static func from(_ revision: UInt64, epoch: String = "", progressMs: UInt32 = 0) -> Self {
        .with {
            $0.fromRevision = revision
            $0.epoch = epoch
            $0.progressIntervalMs = progressMs
        }
    }
}

extension Array where Element == Hearth_V1_WatchResponse {
    var changes: [Hearth_V1_Change] { flatMap(\.changes) }
    var synced: Bool { contains(where: \.synced) }
}

/// Expects `body` to fail with `code`.
func expectStatus(
    _ code: Status.Code, _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        try await body()
        Issue.record("expected \(code), the call succeeded", sourceLocation: sourceLocation)
    } catch let error as RPCError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected RPCError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Polls `probe` every 20 ms until it returns a value, for at most `timeout`.
func eventually<T>(
    timeout: Duration = .seconds(20), _ probe: () async throws -> T?, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let value = try await probe() { return value }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw HarnessError(description: "condition not met within \(timeout)")
}

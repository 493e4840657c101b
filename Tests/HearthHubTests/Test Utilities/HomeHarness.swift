import Foundation
import HearthCameraSim
import HearthProto
import HearthSDK
import OpenCombineShim
import Synchronization
import Testing

/// A hub, the camera simulation (``withCameraSimulation(_:configure:_:)``) with every device online, and a
/// `Home` connected with `token`.
func withCameraHome(
    token: String = Tokens.admin, configure: (inout CameraSimulation.Configuration) -> Void = { _ in },
    _ body: (HubClient, CameraSimulation, Home) async throws -> Void
) async throws {
    try await withTemporaryDirectory { dir in
        try await withHub(directory: dir) { _, client in
            try await withCameraSimulation(client, configure: configure) { simulation in
                try await client.waitForDevices(simulation.profiles.map { "camera/\($0.id)" }) { $0.connectivity == .online }
                let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: token)
                defer { home.close() }
                try await body(client, simulation, home)
            }
        }
    }
}

extension Home {
    /// The device `id` as the cache holds it (after the first sync).
    func cachedDevice(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> HomeDevice {
        try #require(try await devices().list().first { $0.id == id }, "no device \(id)", sourceLocation: sourceLocation)
    }
}

/// Expects `body` to throw a ``HomeError`` with `code`; returns it to check its message.
@discardableResult
func expectHomeError(
    _ code: HomeError.Code, _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) async -> HomeError? {
    do {
        try await body()
        Issue.record("expected \(code), the call succeeded", sourceLocation: sourceLocation)
    } catch let error as HomeError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected HomeError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

extension Recorder {
    /// The publisher's completion, waiting for it (bounded by ``eventually(timeout:_:sourceLocation:)``).
    func completed(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Subscribers.Completion<HomeError> {
        try await eventually({ completion.withLock { $0 } }, sourceLocation: sourceLocation)
    }
}

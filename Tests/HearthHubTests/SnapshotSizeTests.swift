import Foundation
@testable import HearthHub
import HearthProto
import SwiftProtobuf
import Testing

/// The first response of a snapshot tells a watcher that sees every device how many will come (a client sizes
/// its cache once); a watcher that sees part of the home is told nothing, since the hub does not know the
/// number before it has gone through the devices.
@Suite("A snapshot's first response says how many devices follow")
struct SnapshotSizeTests {
    static let ids = (0..<30).map { "lamp-\($0)" }

    /// A home with the lamps, and a watcher's whole snapshot from `request` as `user`, in responses of about
    /// `responseBytes` (2 KB: the snapshot comes in several).
    static func snapshot(
        _ request: Hearth_V1_WatchRequest = .from(0),
        as user: UserAccess = UserAccess(user: "admin", role: .admin, structures: nil), responseBytes: Int = 2048
    ) async throws -> [Hearth_V1_WatchResponse] {
        try await withEngine { engine in
            _ = await engine.driverConnected("lights")
            _ = try await engine.announce(driver: "lights", .with { $0.devices = ids.map(lampWithSensor) })
            try await engine.awaitCommit()
            let revision = await engine.info().revision
            let watcher = EngineWatcher(engine, request, as: user, configuration: .init(maxResponseBytes: responseBytes))
            defer { watcher.stop() }
            return try await watcher.collect(through: revision)
        }
    }

    static func devices(_ responses: [Hearth_V1_WatchResponse]) -> Int {
        responses.flatMap(\.changes).filter { if case .device = $0.kind { true } else { false } }.count
    }

    @Test("a watcher seeing the whole home: the number on the first response only")
    func everything() async throws {
        let responses = try await Self.snapshot()
        #expect(responses.count >= 2, "the snapshot spans more than one response")
        #expect(responses.last?.synced == true)
        #expect(Self.devices(responses) == Self.ids.count)
        #expect(responses.first?.snapshotDevices == UInt64(Self.ids.count))
        #expect(responses.dropFirst().allSatisfy { $0.snapshotDevices == 0 })
    }

    @Test("a snapshot sent in one response, its synced mark: the number on it")
    func oneResponse() async throws {
        let responses = try await Self.snapshot(responseBytes: 1 << 20)
        #expect(responses.count == 1)
        #expect(responses.first?.synced == true)
        #expect(Self.devices(responses) == Self.ids.count)
        #expect(responses.first?.snapshotDevices == UInt64(Self.ids.count))
    }

    @Test("a filtered watch, or a user limited to some structures: no number")
    func part() async throws {
        var filtered = Hearth_V1_WatchRequest.from(0)
        filtered.filter.deviceIds = ["lights/lamp-1", "lights/lamp-2"]
        let some = try await Self.snapshot(filtered)
        #expect(Self.devices(some) == 2)
        #expect(some.allSatisfy { $0.snapshotDevices == 0 })

        // The lamps are all in "home": this user sees every one, but the hub does not count them to know it.
        let limited = try await Self.snapshot(as: UserAccess(user: "guest", role: .viewer, structures: ["home"]))
        #expect(limited.last?.synced == true)
        #expect(Self.devices(limited) == Self.ids.count)
        #expect(limited.allSatisfy { $0.snapshotDevices == 0 })
    }
}

import Foundation
@testable import HearthHub
import HearthModel
import HearthProto
import HearthTesting
import SwiftProtobuf
import Synchronization
import Testing

/// Two watchers joining while one's snapshot is still being sent share its encoded devices, and neither
/// sees anything but its own revision's state.
@Suite("Snapshots sent together share their encoded devices")
struct SnapshotSharingTests {
    /// The OnOff value of `device` that a watch's responses leave, applied in order.
    static func onOff(_ responses: [Hearth_V1_WatchResponse], device: String) -> Bool? {
        var value: Bool?
        for change in responses.flatMap(\.changes) {
            switch change.kind {
            case .device(let d) where d.id == device:
                let trait = d.types.first { $0.endpoint == 1 }?.traits.first { $0.traitID == 0x0006 }
                value = trait?.attributes.first { $0.id == 0 }?.value.boolValue
            case .trait(let t) where t.deviceID == device && t.state.traitID == 0x0006:
                value = t.state.attributes.first { $0.id == 0 }?.value.boolValue
            default:
                break
            }
        }
        return value
    }

    /// Devices copied from the snapshot cache so far, as the metrics page counts them.
    static func reusedDevices(_ engine: HubEngine) -> Int {
        Int(HubMetricsTests.sample(engine.metrics.render(), "hearth_snapshot_devices_total", labels: "source=\"reused\"") ?? 0)
    }

    @Test("a watcher joining while two snapshots are sent reuses their devices, but encodes one changed meanwhile")
    func joinDuringSnapshot() async throws {
        try await withEngine(configure: { $0.snapshotCacheLinger = .zero }) { engine in
            _ = await engine.driverConnected("lights")
            let ids = (0..<40).map { "lamp-\($0)" }
            _ = try await engine.announce(driver: "lights", .with { $0.devices = ids.map(lampWithSensor) })
            try await engine.awaitCommit()
            let first = await engine.info().revision

            // Watchers A and C: small responses, and sends that stop after their first, mid-snapshot. C starts
            // once A waits, so that its devices are encoded while two snapshots are sent, and stored.
            let gate = Gate()
            let a = GatedWatcher(engine, gate: gate)
            defer { a.task.cancel() }
            let aFirst = try await a.first()
            let c = GatedWatcher(engine, gate: gate)
            defer { c.task.cancel() }
            let cFirst = try await c.first()
            #expect(engine.snapshotCache.usage.devices == ids.count)

            // lamp-0 changes, then B joins: the 39 others come from the cache, lamp-0 is encoded again.
            try await engine.report("lights", "lamp-0", trait: 0x0006, [0: .bool(true)])
            let changed = await engine.info().revision
            let reused = Self.reusedDevices(engine)
            let b = EngineWatcher(engine)
            defer { b.stop() }
            let bSeen = try await b.collect(through: changed)
            #expect(bSeen.last?.synced == true && bSeen.last?.revision == changed)
            #expect(Self.onOff(bSeen, device: "lights/lamp-0") == true)
            #expect(Self.onOff(bSeen, device: "lights/lamp-1") == false)
            let bDevices = bSeen.flatMap(\.changes).compactMap { change -> String? in
                if case .device(let d) = change.kind { return d.id }
                return nil
            }
            #expect(Set(bDevices).count == ids.count && bDevices.count == ids.count)
            #expect(Self.reusedDevices(engine) - reused == ids.count - 1, "all but the changed lamp copied")

            // A then gets its own revision's snapshot, followed by the change.
            gate.open()
            for (watcher, firstResponse) in [(a, aFirst), (c, cFirst)] {
                let seen = try await [firstResponse] + watcher.collect(through: changed)
                let synced = try #require(seen.firstIndex { $0.synced })
                #expect(seen[synced].revision == first)
                #expect(Self.onOff(Array(seen[...synced]), device: "lights/lamp-0") == false)
                #expect(Self.onOff(seen, device: "lights/lamp-0") == true)
                watcher.task.cancel()
                _ = await watcher.task.result
            }
            b.stop()
            _ = try? await b.task.value
            #expect(engine.snapshotCache.usage.devices == 0, "emptied once no snapshot is sent")
        }
    }

    @Test("watchers joining one after another within the linger, through other filters and rights, each get their own devices")
    func joinAfterAnother() async throws {
        try await withEngine { engine in
            _ = await engine.driverConnected("lights")
            let ids = (0..<30).map { "lamp-\($0)" }
            _ = try await engine.announce(driver: "lights", .with { $0.devices = ids.map(lampWithSensor) })
            func snapshot(
                _ request: Hearth_V1_WatchRequest = .from(0),
                as user: UserAccess = HubEngineWatchTests.admin
            ) async throws -> [Hearth_V1_Device] {
                try await engine.awaitCommit()
                let watcher = EngineWatcher(engine, request, as: user)
                defer { watcher.stop() }
                return try await watcher.collect(through: await engine.info().revision).flatMap(\.changes).compactMap {
                    if case .device(let d) = $0.kind { return d }
                    return nil
                }
            }
            let first = try await snapshot()
            #expect(first.count == ids.count)
            let reused = Self.reusedDevices(engine)
            #expect(try await snapshot() == first, "the stored blocks' messages, the same as encoded")
            #expect(Self.reusedDevices(engine) - reused == ids.count)

            let two = try await snapshot(.with { $0.filter.deviceIds = ["lights/lamp-3", "lights/lamp-17"] })
            #expect(two.map(\.id) == ["lights/lamp-17", "lights/lamp-3"])
            let limited = UserAccess(user: "guest", role: .viewer, structures: ["elsewhere"])
            #expect(try await snapshot(as: limited).isEmpty, "unassigned devices are hidden from a user limited to structures")
            let reusedBefore = Self.reusedDevices(engine)
            #expect(try await snapshot() == first)
            #expect(Self.reusedDevices(engine) - reusedBefore == ids.count, "the others' blocks did not take these' place")

            try await engine.report("lights", "lamp-5", trait: 0x0006, [0: .bool(true)])
            for _ in 0..<2 {
                let after = try await snapshot()
                #expect(after.map(\.id) == first.map(\.id))
                let responses = [Hearth_V1_WatchResponse.with { $0.changes = after.map { d in .with { $0.device = d } } }]
                #expect(Self.onOff(responses, device: "lights/lamp-5") == true)
                #expect(Self.onOff(responses, device: "lights/lamp-6") == false)
            }
        }
    }

    @Test("a device added or removed between two snapshots is in, or missing from, the second")
    func deviceSetChanges() async throws {
        try await withEngine { engine in
            _ = await engine.driverConnected("lights")
            _ = try await engine.announce(driver: "lights", .with { $0.devices = [lampWithSensor("a"), lampWithSensor("b")] })
            func snapshotDevices() async throws -> [String] {
                try await engine.awaitCommit()
                let watcher = EngineWatcher(engine)
                defer { watcher.stop() }
                return try await watcher.collect(through: await engine.info().revision).flatMap(\.changes).compactMap {
                    if case .device(let d) = $0.kind { return d.id }
                    return nil
                }
            }
            #expect(try await snapshotDevices() == ["lights/a", "lights/b"])
            _ = try await engine.announce(driver: "lights", .with { $0.devices = [lampWithSensor("0")] })
            #expect(try await snapshotDevices() == ["lights/0", "lights/a", "lights/b"])
            #expect(try await engine.removeDevices(driver: "lights", localIDs: ["a"]).isEmpty)
            #expect(try await snapshotDevices() == ["lights/0", "lights/b"])
        }
    }
}

/// An in-process watch with small responses whose sends after the first wait at `gate`: its snapshot stops
/// part way.
struct GatedWatcher: Sendable {
    let responses: AsyncStream<Hearth_V1_WatchResponse>
    let task: Task<Void, any Error>

    init(_ engine: HubEngine, gate: Gate) {
        var small = WatchStream.Configuration()
        small.maxResponseBytes = 512
        let (responses, continuation) = AsyncStream<Hearth_V1_WatchResponse>.makeStream()
        let sends = Mutex(0)
        self.responses = responses
        task = Task {
            defer { continuation.finish() }
            try await engine.watch(.from(0), as: HubEngineWatchTests.admin, configuration: small) { bytes in
                if sends.withLock({ $0 += 1; return $0 }) > 1 { await gate.wait() }
                continuation.yield(try Hearth_V1_WatchResponse(serializedBytes: bytes))
            }
        }
    }

    /// The first response (the snapshot's first part); by then the first round of devices is encoded.
    func first() async throws -> Hearth_V1_WatchResponse {
        var iterator = responses.makeAsyncIterator()
        guard let response = await iterator.next() else { throw HarnessError(description: "the watch ended") }
        return response
    }

    /// The responses after the first, until one carries `revision` or later.
    func collect(through revision: UInt64) async throws -> [Hearth_V1_WatchResponse] {
        var seen: [Hearth_V1_WatchResponse] = []
        for await response in responses {
            seen.append(response)
            if response.revision >= revision { return seen }
        }
        throw HarnessError(description: "the watch ended before revision \(revision)")
    }
}

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

    @Test("a watcher joining during another's snapshot reuses its devices, but encodes one changed meanwhile")
    func joinDuringSnapshot() async throws {
        try await withEngine { engine in
            _ = await engine.driverConnected("lights")
            let ids = (0..<40).map { "lamp-\($0)" }
            _ = try await engine.announce(driver: "lights", .with { $0.devices = ids.map(lampWithSensor) })
            try await engine.awaitCommit()
            let first = await engine.info().revision

            // Watcher A: small responses, and a send that stops after its first one, mid-snapshot.
            var small = WatchStream.Configuration()
            small.maxResponseBytes = 512
            let gate = Gate()
            let sends = Mutex(0)
            let (aResponses, aContinuation) = AsyncStream<Hearth_V1_WatchResponse>.makeStream()
            let a = Task {
                defer { aContinuation.finish() }
                try await engine.watch(.from(0), as: HubEngineWatchTests.admin, configuration: small) { bytes in
                    if sends.withLock({ $0 += 1; return $0 }) > 1 { await gate.wait() }
                    aContinuation.yield(try Hearth_V1_WatchResponse(serializedBytes: bytes))
                }
            }
            defer { a.cancel() }
            // A's devices are all encoded (one round) before its second response waits at the gate.
            let deadline = ContinuousClock.now + .seconds(20)
            while engine.snapshotCache.usage.devices < ids.count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(engine.snapshotCache.usage.devices == ids.count)

            // lamp-0 changes, then B joins: the 39 others come from the cache, lamp-0 is encoded again.
            try await engine.report("lights", "lamp-0", trait: 0x0006, [0: .bool(true)])
            let changed = await engine.info().revision
            let reused = engine.snapshotCache.reused
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
            #expect(Set(bDevices).count == ids.count)
            #expect(engine.snapshotCache.reused - reused == ids.count - 1, "all but the changed lamp copied")

            // A then gets its own revision's snapshot, followed by the change.
            gate.open()
            var aSeen: [Hearth_V1_WatchResponse] = []
            for await response in aResponses {
                aSeen.append(response)
                if response.revision >= changed { break }
            }
            let synced = try #require(aSeen.firstIndex { $0.synced })
            #expect(aSeen[synced].revision == first)
            #expect(Self.onOff(Array(aSeen[...synced]), device: "lights/lamp-0") == false)
            #expect(Self.onOff(aSeen, device: "lights/lamp-0") == true)
            a.cancel()
            b.stop()
            _ = await a.result
            _ = try? await b.task.value
            #expect(engine.snapshotCache.usage.devices == 0, "emptied once no snapshot is sent")
        }
    }
}

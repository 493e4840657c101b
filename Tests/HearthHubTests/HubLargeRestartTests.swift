import Foundation
@testable import HearthHub
import HearthProto
import Testing

/// A restart of a home larger than ``HubEngine/unconfirmedReplayLimit``: every trait is marked unconfirmed in
/// one revision that has no log entries, so a watcher resuming from before it re-lists, while a watcher from 0
/// and one resuming from after it see everything.
@Suite("Restarting a large home")
struct HubLargeRestartTests {
    @Test("resumes from before the restart re-list; the snapshot shows every device unconfirmed")
    func largeHomeRelists() async throws {
        let count = HubEngine.unconfirmedReplayLimit + 1
        try await withTemporaryDirectory { dir in
            let before = try await withHub(directory: dir) { _, client in
                try await withTestDriver(client, devices: (0..<count).map { onOffLight("lamp-\($0)", on: true) }) { _ in
                    try await client.call(HomeMethods.getHub, .init())
                }
            }
            try await withHub(directory: dir) { _, client in
                let resumed = try await client.watch(.from(before.revision, epoch: before.epoch)) { _ in true }
                #expect(resumed.first?.relist.reason == .tooOld, "\(String(describing: resumed.first))")
                let snapshot = try await client.watch(.from(0), limit: 10_000) { $0.synced }
                let devices = snapshot.changes.filter { $0.device.id.hasPrefix("lights/lamp-") }.map(\.device)
                #expect(devices.count == count)
                #expect(devices.allSatisfy { $0.connectivity == .unknown && $0.types[0].traits.allSatisfy { !$0.confirmed } })
                // From the restart's revision on, a resume works and sees the driver come back.
                let now = try await client.call(HomeMethods.getHub, .init())
                try await withTestDriver(client, devices: [onOffLight("lamp-0", on: false)]) { _ in
                    let after = try await client.watch(.from(now.revision, epoch: now.epoch)) { seen in
                        seen.changes.contains { $0.device.id == "lights/lamp-0" && $0.device.connectivity == .online }
                    }
                    #expect(after.first?.hasRelist == false)
                }
            }
        }
    }
}

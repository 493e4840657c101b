import Foundation
import HearthHub
import HearthProto
import HearthWire
import SwiftProtobuf
import Testing

@Suite("Watch: snapshot, resume, relist, progress")
struct HubWatchTests {
    @Test("from 0: snapshot, synced mark, then live changes with increasing revisions")
    func snapshotThenLive() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let room = try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = "Kitchen" })
                // Rename only once the snapshot is complete, so the new name can arrive only as a live change.
                let responses = try await client.wire.serverStreaming(
                    HomeMethods.watch, request: .from(0), options: HubClient.options(Tokens.admin)
                ) { stream in
                    var seen: [Hearth_V1_WatchResponse] = []
                    for try await response in stream {
                        seen.append(response)
                        if response.synced {
                            _ = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = room.id; $0.name = "Cuisine" })
                        }
                        if seen.changes.contains(where: { $0.room.name == "Cuisine" }) || seen.count > 100 { break }
                    }
                    return seen
                }
                #expect(responses.first?.epoch.isEmpty == false)
                let syncedAt = try #require(responses.firstIndex { $0.synced })
                let snapshot = Array(responses[...syncedAt]).changes
                #expect(snapshot.contains { $0.structure.id == "home" })
                #expect(snapshot.contains { $0.room.id == room.id })
                let live = Array(responses[(syncedAt + 1)...]).changes
                #expect(live.last?.room.name == "Cuisine")
                // Responses that carry changes have strictly increasing revisions; a progress mark (no changes)
                // repeats the revision reached, which a slow run can show.
                let revisions = responses.filter { !$0.changes.isEmpty }.map(\.revision).filter { $0 > 0 }
                #expect(revisions == revisions.sorted())
                #expect(Set(revisions).count == revisions.count)
                #expect(responses.map(\.revision) == responses.map(\.revision).sorted())
            }
        }
    }

    @Test("resume across a hub restart replays exactly the missed changes")
    func resumeAcrossRestart() async throws {
        try await withTemporaryDirectory { dir in
            let (epoch, resumeFrom, roomID) = try await withHub(directory: dir) { _, client in
                let room = try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = "Hall" })
                let seen = try await client.watch(.from(0)) { $0.synced }
                return (seen[0].epoch, seen.last!.revision, room.id)
            }
            let renamed = try await withHub(directory: dir) { _, client in
                // Missed while the watcher was away: one rename before and one after the restart.
                _ = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = roomID; $0.name = "Entry" })
                _ = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = roomID; $0.name = "Foyer" })
                return try await client.watch(.from(resumeFrom, epoch: epoch)) { seen in
                    seen.changes.contains { $0.room.name == "Foyer" }
                }
            }
            #expect(renamed.first?.revision == resumeFrom)
            #expect(!renamed.contains { $0.hasRelist })
            let names = renamed.changes.filter { $0.room.id == roomID }.map(\.room.name)
            #expect(names == ["Entry", "Foyer"])
            let revisions = renamed.changes.map(\.revision)
            #expect(revisions.allSatisfy { $0 > resumeFrom })
            #expect(revisions == revisions.sorted())
        }
    }

    @Test("too old, another epoch, or a future revision: an explicit relist")
    func relist() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir, configure: { $0.engine.retainedChanges = 16 }) { _, client in
                let room = try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = "A" })
                let info = try await client.call(HomeMethods.getHub, .init())
                for i in 0..<40 {
                    _ = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = room.id; $0.name = "A\(i)" })
                }
                let tooOld = try await client.watch(.from(1, epoch: info.epoch)) { _ in false }
                #expect(tooOld.count == 1)
                #expect(tooOld[0].relist.reason == .tooOld)
                #expect(tooOld[0].relist.oldestResumable > 1)

                let otherEpoch = try await client.watch(.from(info.revision, epoch: "not-this-hub")) { _ in false }
                #expect(otherEpoch.first?.relist.reason == .epochChanged)
                #expect(otherEpoch.first?.relist.epoch == info.epoch)

                let future = try await client.watch(.from(1_000_000, epoch: info.epoch)) { _ in false }
                #expect(future.first?.relist.reason == .futureRevision)

                let recent = try await client.call(HomeMethods.getHub, .init())
                let ok = try await client.watch(.from(recent.revision - 2, epoch: info.epoch)) { seen in
                    seen.changes.count >= 2
                }
                #expect(ok.changes.map(\.room.name) == ["A38", "A39"])
            }
        }
    }

    @Test("an idle stream gets progress marks carrying a fresh resume point")
    func progressMarks() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let info = try await client.call(HomeMethods.getHub, .init())
                // A fresh hub commits its configured structures behind its start, so on a loaded machine their
                // change can still arrive after this revision: count the marks after the last change.
                @Sendable func trailingMarks(_ seen: [Hearth_V1_WatchResponse]) -> [Hearth_V1_WatchResponse] {
                    Array(seen.reversed().prefix { $0.changes.isEmpty })
                }
                let seen = try await client.watch(.from(info.revision, epoch: info.epoch, progressMs: 100)) {
                    trailingMarks($0).count >= 3
                }
                let now = try await client.call(HomeMethods.getHub, .init())
                let marks = trailingMarks(seen)
                #expect(marks.count == 3)
                #expect(now.revision >= info.revision)
                #expect(marks.allSatisfy { $0.revision == now.revision })
            }
        }
    }
}

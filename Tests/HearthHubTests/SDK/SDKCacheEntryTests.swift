import HearthModel
import HearthProto
@testable import HearthSDK
import HearthTypes
import SwiftProtobuf
import Testing

/// The SDK cache updates a device's entry in place (no new version of the device per change): a snapshot
/// held by a subscriber shows a device as it is now, and the device renderings still deliver each version
/// once, in order, never an older one after a newer.
@Suite("SDK cache: devices updated in place, each version delivered once")
struct SDKCacheEntryTests {
    static let level: UInt32 = 0x0008

    static func device(_ id: String, level: UInt64) -> CompactDevice {
        CompactDevice(
            Hearth_V1_Device.with {
                $0.id = id
                $0.driverID = "lights"
                $0.name = "Lamp \(id)"
                $0.types = [.with { $0.endpoint = 1; $0.deviceTypeID = 0x0101; $0.primary = true; $0.traits = [trait(level: level, revision: 1)] }]
            })
    }

    static func trait(level: UInt64, revision: UInt64) -> Hearth_V1_TraitState {
        .with {
            $0.traitID = Self.level
            $0.attributes = [.with { $0.id = 0; $0.value = Value.uint(level).proto }]
            $0.connectivity = .online
            $0.revision = revision
        }
    }

    /// A trait change of `id`'s level, as the watch stream brings it.
    static func change(_ id: String, level: UInt64, revision: UInt64) -> WatchBatch.Change {
        .trait(deviceID: id, endpoint: 1, state: CompactTrait(trait(level: level, revision: revision)))
    }

    static func level(_ device: HomeDevice) -> Value? {
        device.types.all.traitData(TraitID(Self.level))?.attributes[AttributeID(0)]
    }

    /// A published snapshot of devices `ids` (sequence 1), as the first sync leaves it.
    static func published(_ ids: [String]) -> HomeSnapshot {
        var snapshot = HomeSnapshot()
        for id in ids { snapshot.apply(.device(device(id, level: 0)), revision: 1) }
        snapshot.synced = true
        snapshot.sequence = 1
        snapshot.delta = HomeSnapshot.Delta()
        return snapshot
    }

    /// The next update applied to a copy of `snapshot`, as the watch loop makes it (not yet published).
    static func update(_ snapshot: HomeSnapshot, _ changes: [(String, UInt64, UInt64)]) -> HomeSnapshot {
        var next = snapshot
        next.delta = HomeSnapshot.Delta()
        for (id, level, revision) in changes { next.apply(change(id, level: level, revision: revision), revision: revision) }
        if !next.delta.isEmpty { next.sequence += 1 }
        return next
    }

    @Test("a change is written into the shared entry: the older snapshot sees it, the entry's stamp moves, a repeat does not")
    func inPlace() throws {
        let old = Self.published(["a", "b"])
        let entry = try #require(old.devices["a"])
        let next = Self.update(old, [("a", 7, 2)])
        #expect(next.devices["a"] === entry, "the same entry, not a new version")
        #expect(next.delta.devices == ["a"] && next.sequence == 2)
        let trait = try #require(entry.value.types.all.first?.traits.first)
        #expect(trait.values()[AttributeID(0)] == .uint(7) && trait.revision == 2)
        #expect(entry.stamp.version == 1 && entry.stamp.sequence == 2)
        // The same state again at the same revision changes nothing.
        let repeated = Self.update(next, [("a", 7, 2)])
        #expect(repeated.delta.isEmpty && repeated.sequence == 2 && entry.stamp.version == 1)
        // A change of a device the cache does not hold is ignored.
        #expect(Self.update(next, [("zz", 1, 3)]).delta.isEmpty)
    }

    @Test("a version delivered ahead of its update is not delivered again; a newer one is; a new entry under the same id is")
    func memory() {
        var memory = DeviceRenderMemory()
        let entry = CachedDevice(Self.device("a", level: 0))
        // Rendering snapshot 1 finds the entry changed by update 2, not yet published: delivered, remembered.
        let d1 = memory.shouldDeliver("a", entry, version: 1, changedIn: 2, sequence: 1)
        #expect(d1)
        #expect(memory.remembered == 1)
        // Update 2's rendering reads the same version: not again; nothing is remembered after it.
        let d2 = memory.shouldDeliver("a", entry, version: 1, changedIn: 2, sequence: 2)
        #expect(!d2)
        #expect(memory.remembered == 0)
        // Ahead again, then changed once more before its update's rendering: the newer version goes out.
        let d3 = memory.shouldDeliver("a", entry, version: 2, changedIn: 3, sequence: 2)
        #expect(d3)
        let d4 = memory.shouldDeliver("a", entry, version: 3, changedIn: 3, sequence: 3)
        #expect(d4)
        #expect(memory.remembered == 0)
        // A removed device is forgotten.
        let d9 = memory.shouldDeliver("b", entry, version: 1, changedIn: 9, sequence: 8)
        #expect(d9 && memory.remembered == 1)
        memory.forget("b")
        #expect(memory.remembered == 0)
        // Removed and added again: a new entry, even at an equal version, is delivered.
        let d5 = memory.shouldDeliver("a", entry, version: 4, changedIn: 5, sequence: 4)
        #expect(d5)
        let d6 = memory.shouldDeliver("a", CachedDevice(Self.device("a", level: 0)), version: 4, changedIn: 5, sequence: 5)
        #expect(d6)
    }

    @Test("stream(), batched() and device(id:) renderings deliver each version once while an update is being applied")
    func renderings() throws {
        // Nothing listens at this address: the home is only what the renderings bind devices to.
        let home = try Home.connect(to: "127.0.0.1:9", token: "t")
        defer { home.close() }
        let stream = DeviceRenders.stream(home)
        let batched = DeviceRenders.batched(home)
        let single = DeviceRenders.single("a", home: home)
        func outputs<T>(_ step: FeedStep<T>) -> [T] {
            if case .values(let values) = step { return values }
            Issue.record("the rendering finished")
            return []
        }

        let s1 = Self.published(["a", "b"])
        #expect(outputs(stream(true, s1, s1.delta)).count == 2)
        #expect(outputs(batched(true, s1, s1.delta)).first?.count == 2)
        #expect(outputs(single(true, s1, s1.delta)).map(Self.level) == [.uint(0)])

        // Update 2 changes a; before it is published, each rendering of an earlier update that lists a
        // (here: update 1's own delta again) reads the new value and delivers it.
        var s1b = s1
        s1b.delta.devices = ["a"]
        let s2 = Self.update(s1, [("a", 5, 2)])
        #expect(outputs(stream(false, s1b, s1b.delta)).map(Self.level) == [.uint(5)])
        #expect(outputs(batched(false, s1b, s1b.delta)).first.map { $0.compactMap(Self.level).sorted { "\($0)" < "\($1)" } } == [.uint(0), .uint(5)])
        #expect(outputs(single(false, s1b, s1b.delta)).map(Self.level) == [.uint(5)])
        // Update 2 published: nothing new to deliver.
        #expect(outputs(stream(false, s2, s2.delta)).isEmpty)
        #expect(outputs(batched(false, s2, s2.delta)).isEmpty)
        #expect(outputs(single(false, s2, s2.delta)).isEmpty)
        // Update 3 changes a and b: both go out, once.
        let s3 = Self.update(s2, [("a", 6, 3), ("b", 9, 3)])
        #expect(Set(outputs(stream(false, s3, s3.delta)).compactMap(Self.level)) == [.uint(6), .uint(9)])
        #expect(outputs(batched(false, s3, s3.delta)).first.map { Set($0.compactMap(Self.level)) } == [.uint(6), .uint(9)])
        #expect(outputs(single(false, s3, s3.delta)).map(Self.level) == [.uint(6)])
        // A feed renders each snapshot once; rendering the same one again would deliver its changes again.
        #expect(outputs(stream(false, s3, s3.delta)).count == 2, "a second rendering of the same update delivers it again")
    }

    @Test("a whole device message makes a new version even when only revisions differ, and is a change only when more differs")
    func replace() throws {
        let s1 = Self.published(["a"])
        let entry = try #require(s1.devices["a"])
        var newer = Self.device("a", level: 0)
        newer.revision = 9
        var next = s1
        next.apply(.device(newer), revision: 9)
        #expect(next.delta.isEmpty && entry.stamp.version == 1 && entry.value.revision == 9)
        newer.name = "Hall lamp"
        next.apply(.device(newer), revision: 10)
        #expect(next.delta.devices == ["a"] && entry.stamp.version == 2 && entry.value.name == "Hall lamp")
    }

    @Test("a feed ignores a snapshot older than one it was given (a first snapshot overtaken by a publication)")
    func olderSnapshotIgnored() async throws {
        let feed = Feed<UInt64> { _, snapshot, _ in .values([snapshot.sequence]) }
        var newer = Self.published(["a"])
        newer.sequence = 3
        newer.delta.devices = ["a"]
        var older = newer
        older.sequence = 2
        feed.push(newer)
        feed.push(older)
        #expect(try await feed.next() == 3)
        newer.sequence = 4
        feed.push(newer)
        #expect(try await feed.next() == 4)
        feed.cancel()
    }
}

@testable import HearthHub
import HearthModel
import Testing

/// Watchers joining at once share their snapshots' encoded devices; an entry is used only for the record it
/// was encoded from, and lives while snapshots are sent (and, with a linger, a while after).
@Suite("Snapshot cache: devices encoded once for the snapshots sent meanwhile")
struct SnapshotCacheTests {
    static let devices = SnapshotEncodingTests.devices

    /// A cache while two snapshots are sent (so that it stores), with `devices` encoded into it at revision 1.
    static func sharing(_ body: (SnapshotCache) -> Void) {
        let cache = SnapshotCache(byteLimit: 1 << 20)
        cache.begin()
        cache.begin()
        defer { cache.end(); cache.end() }
        _ = WatchStream.encode(devices, revision: 1, cache: cache)
        body(cache)
    }

    static func expected(_ records: [DeviceRecord], revision: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        for record in records { record.appendFramedChange(revision: revision, to: &out) }
        return out
    }

    @Test("a second snapshot copies what the first encoded, byte for byte, at its own revision")
    func sharedBytes() {
        let cache = SnapshotCache(byteLimit: 1 << 20)
        cache.begin()
        cache.begin()
        let first = WatchStream.encode(Self.devices, revision: 7, cache: cache).bytes
        #expect(cache.usage.devices == Self.devices.count)
        #expect(cache.lookup(Self.devices).allSatisfy { $0 != nil })
        let second = WatchStream.encode(Self.devices, revision: 9, cache: cache).bytes
        #expect(first == Self.expected(Self.devices, revision: 7))
        #expect(second == Self.expected(Self.devices, revision: 9))
        cache.end()
        cache.end()
    }

    @Test("a device that changed since it was encoded is encoded again, and replaces the entry")
    func changedRecord() {
        Self.sharing { cache in
            var renamed = Self.devices
            renamed[0].name = "Hall lamp"
            var reported = Self.devices
            reported[0].types[0].traits[0].attributes[0] = .bool(false)
            for changed in [renamed, reported] {
                let lookup = cache.lookup(changed)
                #expect(lookup[0] == nil)
                #expect(lookup[1] != nil && lookup[2] != nil)
                #expect(WatchStream.encode(changed, revision: 2, cache: cache).bytes == Self.expected(changed, revision: 2))
                #expect(cache.lookup(changed)[0] != nil)
            }
            #expect(cache.lookup(Self.devices)[0] == nil)
        }
    }

    @Test("a change in the middle of a block stores the block anew: the devices around it are kept")
    func changedInTheMiddle() {
        Self.sharing { cache in
            var changed = Self.devices
            changed[1].name = "Desk lamp"
            #expect(cache.lookup(changed).map { $0 != nil } == [true, false, true])
            let encoded = WatchStream.encode(changed, revision: 2, cache: cache)
            #expect(encoded.bytes == Self.expected(changed, revision: 2))
            #expect(encoded.reused == 2)
            #expect(cache.lookup(changed).allSatisfy { $0 != nil })
            #expect(cache.usage.devices == Self.devices.count, "replaced, not added to")
        }
    }

    @Test("a block seen through another filter (a device left out) is copied where it lines up, encoded where not")
    func otherMembership() {
        Self.sharing { cache in
            let filtered = [Self.devices[0], Self.devices[2]]
            let encoded = WatchStream.encode(filtered, revision: 3, cache: cache)
            #expect(encoded.bytes == Self.expected(filtered, revision: 3))
            #expect(encoded.reused == 1)
        }
    }

    @Test("the last snapshot to end empties the cache; nothing is stored while fewer than two are sent")
    func lifetime() {
        let cache = SnapshotCache(byteLimit: 1 << 20)
        #expect(WatchStream.encode(Self.devices, revision: 1, cache: cache).bytes == Self.expected(Self.devices, revision: 1))
        #expect(cache.usage.devices == 0)
        cache.begin()
        #expect(WatchStream.encode(Self.devices, revision: 1, cache: cache).bytes == Self.expected(Self.devices, revision: 1))
        #expect(cache.usage.devices == 0, "a snapshot sent alone stores nothing")
        cache.begin()
        _ = WatchStream.encode(Self.devices, revision: 1, cache: cache).bytes
        cache.end()
        #expect(cache.usage.devices == Self.devices.count)
        #expect(cache.lookup(Self.devices).allSatisfy { $0 != nil }, "kept for the snapshot still sent")
        cache.end()
        #expect(cache.usage.devices == 0 && cache.usage.bytes == 0)
        #expect(cache.lookup(Self.devices).allSatisfy { $0 == nil })
    }

    @Test("with a linger, a snapshot sent alone stores, and what it stored outlives it")
    func linger() async {
        // A linger no test run outlasts: nothing below depends on how fast it runs.
        let cache = SnapshotCache(byteLimit: 1 << 20, linger: .seconds(600))
        cache.begin()
        #expect(cache.isSharing, "one may follow")
        #expect(await cache.claim("a"), "a lone snapshot claims its blocks, for one joining meanwhile")
        cache.finished("a")
        #expect(WatchStream.encode(Self.devices, revision: 1, cache: cache).bytes == Self.expected(Self.devices, revision: 1))
        #expect(cache.usage.devices == Self.devices.count, "stored although sent alone")
        cache.end()
        #expect(cache.lookup(Self.devices).allSatisfy { $0 != nil }, "kept after the last snapshot ended")

        // A snapshot begun within the linger copies every device.
        cache.begin()
        let copied = WatchStream.encode(Self.devices, revision: 2, cache: cache)
        #expect(copied.reused == Self.devices.count)
        #expect(copied.bytes == Self.expected(Self.devices, revision: 2))
        cache.end()
        #expect(cache.usage.devices == Self.devices.count)
    }

    @Test("what lingers is emptied once the linger has passed with no snapshot sent, never while one is")
    func lingerExpires() async {
        let cache = SnapshotCache(byteLimit: 1 << 20, linger: .milliseconds(50))
        cache.begin()
        cache.begin()
        _ = WatchStream.encode(Self.devices, revision: 1, cache: cache)
        cache.end()
        // One snapshot is still sent: no linger has started, however long this waits.
        try? await Task.sleep(for: .milliseconds(200))
        #expect(cache.usage.devices == Self.devices.count, "not emptied while a snapshot is sent")
        cache.end()
        let deadline = ContinuousClock.now + .seconds(10)
        while cache.usage.devices > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(cache.usage.devices == 0 && cache.usage.bytes == 0, "emptied once the linger passed in quiet")
        #expect(cache.lookup(Self.devices).allSatisfy { $0 == nil })
    }

    @Test("a snapshot of a newer device set empties what older snapshots stored, an equal or older one keeps it")
    func newerDeviceSet() {
        let cache = SnapshotCache(byteLimit: 1 << 20)
        cache.begin(deviceSet: 3)
        cache.begin(deviceSet: 3)
        _ = WatchStream.encode(Self.devices, revision: 1, cache: cache)
        cache.begin(deviceSet: 2)
        #expect(cache.usage.devices == Self.devices.count, "an older set keeps what is stored")
        cache.begin(deviceSet: 4)
        #expect(cache.usage.devices == 0 && cache.usage.bytes == 0)
        #expect(cache.lookup(Self.devices).allSatisfy { $0 == nil })
        for _ in 0..<4 { cache.end() }
    }

    @Test("the byte limit bounds what is stored; devices beyond it are still encoded")
    func byteLimit() {
        var one: [UInt8] = []
        Self.devices[0].appendDevice(to: &one)
        let cache = SnapshotCache(byteLimit: one.count + SnapshotCache.entryOverhead)
        cache.begin()
        cache.begin()
        defer { cache.end(); cache.end() }
        let bytes = WatchStream.encode(Self.devices, revision: 3, cache: cache).bytes
        #expect(bytes == Self.expected(Self.devices, revision: 3))
        #expect(cache.usage.devices == 1)
        #expect(cache.usage.bytes <= cache.byteLimit)
        #expect(WatchStream.encode(Self.devices, revision: 4, cache: cache).bytes == Self.expected(Self.devices, revision: 4))
    }

    @Test("a block is encoded by the snapshot that claims it; another waits for it, then copies")
    func claims() async {
        let cache = SnapshotCache(byteLimit: 1 << 20)
        cache.begin()
        #expect(await cache.claim("a") == false, "alone: nothing would be stored, no claim")
        cache.begin()
        defer { cache.end(); cache.end() }
        #expect(await cache.claim("a"))
        let waiter = Task { await cache.claim("a") }
        let deadline = ContinuousClock.now + .seconds(10)
        while cache.waiters(for: "a") == 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(cache.waiters(for: "a") == 1)
        #expect(await cache.claim("b"), "another block is claimed at once")
        cache.finished("b")
        cache.finished("a")
        let waited = await waiter.value
        #expect(waited == false, "released once the block is stored; it looks it up")
        if waited { cache.finished("a") }  // (had it claimed the block itself, the next claim would wait)
        #expect(await cache.claim("a"), "free to claim again")
        cache.finished("a")
    }

    @Test("the sorted device ids are kept until a device is added or removed")
    func sortedIDs() {
        let cache = SnapshotCache(byteLimit: 1 << 20)
        var graph = HomeGraph(epoch: "e", revision: 1)
        for device in Self.devices.reversed() { graph.put(device) }
        let ids = Self.devices.map(\.id).sorted()
        #expect(cache.sortedDeviceIDs(graph) == ids)
        var renamed = Self.devices[0]
        renamed.name = "Other"
        graph.put(renamed)
        #expect(cache.sortedDeviceIDs(graph) == ids, "a changed device keeps the set")
        var added = Self.devices[1]
        added.id = "a/first"
        graph.put(added)
        #expect(cache.sortedDeviceIDs(graph) == ["a/first"] + ids)
        graph.removeDevice(Self.devices[0].id)
        #expect(cache.sortedDeviceIDs(graph) == ["a/first"] + ids.filter { $0 != Self.devices[0].id })
    }
}

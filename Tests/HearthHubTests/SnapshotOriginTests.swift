@testable import HearthHub
import HearthModel
import HearthProto
import SwiftProtobuf
import Testing

/// A block stored whole for a graph (its devices' stamp) and a filter is sent as it is by the other snapshots
/// of the same: never for another graph, another filter, or a block stored only in part.
@Suite("Snapshot cache: blocks sent whole to snapshots of the same devices")
struct SnapshotOriginTests {
    static let devices = SnapshotEncodingTests.devices
    static let key = devices[0].id
    static let everything = WatchFilter(
        Hearth_V1_WatchFilter(), access: UserAccess(user: "admin", role: .admin, structures: nil))
    static let home = WatchFilter(
        .with { $0.structureIds = ["home"] }, access: UserAccess(user: "admin", role: .admin, structures: nil))

    static func origin(_ stamp: UInt64, _ filter: WatchFilter = everything) -> SnapshotCache.Origin {
        SnapshotCache.Origin(devicesStamp: stamp, visibility: filter.visibility)
    }

    /// A cache while two snapshots are sent (so that it stores), with `devices` encoded into it for `origin`.
    static func sharing(byteLimit: Int = 1 << 20, _ body: (SnapshotCache) -> Void) {
        let cache = SnapshotCache(byteLimit: byteLimit)
        cache.begin()
        cache.begin()
        defer { cache.end(); cache.end() }
        _ = WatchStream.encode(devices, revision: 1, cache: cache, key: key, origin: origin(7))
        body(cache)
    }

    @Test("the same devices and filter: the block is sent whole, byte for byte, at the snapshot's revision")
    func sameOrigin() throws {
        Self.sharing { cache in
            let sent = WatchStream.encodeStored(Self.key, origin: Self.origin(7), revision: 9, cache: cache)
            #expect(sent?.count == Self.devices.count)
            #expect(sent?.bytes == SnapshotCacheTests.expected(Self.devices, revision: 9))
        }
    }

    @Test("another graph, another filter or another block: nothing is sent whole")
    func otherOrigin() {
        Self.sharing { cache in
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(8), revision: 9, cache: cache) == nil)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(7, Self.home), revision: 9, cache: cache) == nil)
            #expect(WatchStream.encodeStored("v/x", origin: Self.origin(7), revision: 9, cache: cache) == nil)
        }
    }

    @Test("a block stored only in part (the byte limit) is never sent whole")
    func partBlock() {
        var first: [UInt8] = []
        Self.devices[0].appendDevice(to: &first)
        let one = first.count + SnapshotCache.entryOverhead
        Self.sharing(byteLimit: one) { cache in
            #expect(cache.usage.devices == 1)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(7), revision: 9, cache: cache) == nil)
            let encoded = WatchStream.encode(Self.devices, revision: 9, cache: cache, key: Self.key, origin: Self.origin(7))
            #expect(encoded.bytes == SnapshotCacheTests.expected(Self.devices, revision: 9))
        }
    }

    @Test("a newer graph that finds every device as stored takes the block over; one that changed a device stores its own")
    func newerGraph() {
        Self.sharing { cache in
            let same = WatchStream.encode(Self.devices, revision: 2, cache: cache, key: Self.key, origin: Self.origin(8))
            #expect(same.reused == Self.devices.count)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(8), revision: 2, cache: cache) != nil)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(7), revision: 2, cache: cache) == nil)

            var changed = Self.devices
            changed[2].name = "Hall thermostat"
            let encoded = WatchStream.encode(changed, revision: 3, cache: cache, key: Self.key, origin: Self.origin(9))
            #expect(encoded.reused == 2)
            let sent = WatchStream.encodeStored(Self.key, origin: Self.origin(9), revision: 4, cache: cache)
            #expect(sent?.bytes == SnapshotCacheTests.expected(changed, revision: 4))
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(8), revision: 4, cache: cache) == nil)
        }
    }

    @Test("an older graph that finds a block whole leaves it to the newer one")
    func olderGraph() {
        Self.sharing { cache in
            _ = WatchStream.encode(Self.devices, revision: 2, cache: cache, key: Self.key, origin: Self.origin(8))
            let older = WatchStream.encode(Self.devices, revision: 2, cache: cache, key: Self.key, origin: Self.origin(7))
            #expect(older.reused == Self.devices.count)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(8), revision: 2, cache: cache) != nil)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(7), revision: 2, cache: cache) == nil)
        }
    }

    @Test("another user who sees the same devices is sent the block whole; one limited to other structures is not")
    func otherUsers() {
        let member = WatchFilter(Hearth_V1_WatchFilter(), access: UserAccess(user: "kid", role: .viewer, structures: nil))
        let limited = WatchFilter(Hearth_V1_WatchFilter(), access: UserAccess(user: "guest", role: .viewer, structures: ["home"]))
        #expect(member.visibility.isEverything && !limited.visibility.isEverything)
        Self.sharing { cache in
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(7, member), revision: 2, cache: cache) != nil)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(7, limited), revision: 2, cache: cache) == nil)
        }
    }

    @Test("a graph whose filter shows fewer of the stored devices does not take the block over")
    func fewerDevices() {
        Self.sharing { cache in
            let first = [Self.devices[0], Self.devices[1]]
            let encoded = WatchStream.encode(first, revision: 2, cache: cache, key: Self.key, origin: Self.origin(8))
            #expect(encoded.reused == 2)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(8), revision: 2, cache: cache) == nil)
            #expect(WatchStream.encodeStored(Self.key, origin: Self.origin(7), revision: 2, cache: cache) != nil)
        }
    }
}

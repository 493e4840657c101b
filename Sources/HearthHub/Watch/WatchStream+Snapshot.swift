import HearthModel
import HearthProto
import NIOCore
import SwiftProtobuf

extension WatchStream {
    /// The graph as changes at `revision`, encoded as they are sent, in bounded responses; the last is
    /// marked synced. Intermediate responses carry revision 0: a stream cut there restarts from 0.
    /// Devices encoded per block of a snapshot: about 200 KB of response for small devices.
    static let snapshotBlock = 1024

    func sendSnapshot(_ graph: HomeGraph, revision: UInt64) async throws {
        // Sorted (or taken as kept) before a slot of the gate is held.
        let ids = snapshotCache.sortedDeviceIDs(graph)
        let visibility = filter.visibility
        // The first response says how many devices follow when the watcher sees them all, so that a client
        // sizes its table once (growing it by doubling was 8 % of a client joining 100,000 devices).
        let announced = visibility.isEverything ? UInt64(ids.count) : 0
        var response = WatchResponseBytes()
        var first = true
        /// The response built so far, finished; the first of the snapshot carries the epoch and the count.
        func finish(revision: UInt64, synced: Bool = false) -> [UInt8] {
            defer { (first, response) = (false, WatchResponseBytes()) }
            return response.finished(
                revision: revision, synced: synced, epoch: first ? epoch : nil, snapshotDevices: first ? announced : 0)
        }
        // Chunks are built holding a slot of the gate and sent without it.
        await snapshotGate.acquire()
        var holding = true
        defer { if holding { snapshotGate.release() } }
        /// Sends the response built so far as an intermediate chunk once it reached the limit.
        func sendIfFull() async throws {
            guard response.byteCount >= configuration.maxResponseBytes else { return }
            try await send(finish(revision: 0))
        }
        func add(_ kind: Hearth_V1_Change.OneOf_Kind) async throws {
            var change = Hearth_V1_Change()
            change.revision = revision
            change.kind = kind
            response.append(framedChange: LogEntry.frame(try change.serializedBytes()))
            guard response.byteCount >= configuration.maxResponseBytes else { return }
            snapshotGate.release()
            holding = false
            try await sendIfFull()
            await snapshotGate.acquire()
            holding = true
        }
        for s in graph.structures.values.sorted(by: { $0.id < $1.id })
        where filter.sees(ChangeRoute(structureID: s.id, isContext: true), structure: s.id) {
            try await add(.structure(s.proto))
        }
        for r in graph.rooms.values.sorted(by: { $0.id < $1.id })
        where filter.sees(ChangeRoute(structureID: r.structureID, isContext: true), structure: r.structureID) {
            try await add(.room(r.proto))
        }
        // The devices, most of a snapshot, are encoded in blocks on every core at once (each block holding a
        // slot of the gate, so watchers joining together still share the cores), and sent in id order.
        snapshotGate.release()
        holding = false
        let filter = self.filter
        // Blocks are stored by their first id, and by what the watcher sees unless it sees everything: watchers
        // of other filters or structures do not take each other's blocks' places.
        let keySuffix = visibility.isEverything ? "" : "\u{1F}\(visibility.hashValue)"
        let origin = SnapshotCache.Origin(devicesStamp: graph.devicesStamp, visibility: visibility)
        let cache = snapshotCache
        cache.begin(deviceSet: graph.deviceSetVersion)
        defer { cache.end() }
        var start = 0
        while start < ids.count {
            let round = min(ids.count, start + Self.snapshotBlock * System.coreCount)
            let blocks = try await withThrowingTaskGroup(of: (Int, [UInt8], Int).self) { group in
                for (index, blockStart) in stride(from: start, to: round, by: Self.snapshotBlock).enumerated() {
                    let blockIDs = ids[blockStart..<min(round, blockStart + Self.snapshotBlock)]
                    // On the global executor: a child task inherits the handler's preference for its connection's
                    // event loop, which ran every block on that one thread, one after another.
                    group.addTask(executorPreference: globalConcurrentExecutor) {
                        await self.snapshotGate.acquire()
                        defer { self.snapshotGate.release() }
                        // Blocks start at the same ids in every snapshot of the same devices: one snapshot
                        // encodes a block, the others sent meanwhile wait for it and copy.
                        let key = blockIDs[blockIDs.startIndex] + keySuffix
                        let claimed = await cache.claim(key)
                        defer { if claimed { cache.finished(key) } }
                        if let (bytes, count) = Self.encodeStored(key, origin: origin, revision: revision, cache: cache) {
                            self.metrics.recordSnapshotDevices(encoded: 0, reused: count)
                            return (index, bytes, count)
                        }
                        // One pass, one array: the block's records as the graph holds them, those the filter shows.
                        var records: [DeviceRecord] = []
                        records.reserveCapacity(blockIDs.count)
                        for id in blockIDs {
                            if let record = graph.devices[id], filter.sees(record) { records.append(record) }
                        }
                        let (bytes, reused) = Self.encode(records, revision: revision, cache: cache, key: key, origin: origin)
                        self.metrics.recordSnapshotDevices(encoded: records.count - reused, reused: reused)
                        return (index, bytes, records.count)
                    }
                }
                var blocks: [(Int, [UInt8], Int)] = []
                for try await block in group { blocks.append(block) }
                return blocks.sorted { $0.0 < $1.0 }
            }
            for (_, bytes, count) in blocks where count > 0 {
                response.append(framedChanges: bytes, count: count)
                try await sendIfFull()
            }
            start = round
        }
        try await send(finish(revision: revision, synced: true))
    }

    /// `records` as framed changes at `revision`: each written straight from the record
    /// (``DeviceRecord/appendDevice(to:)``), not through a `Hearth_V1_Device` tree and swift-protobuf, or
    /// copied from `cache` where a snapshot sent meanwhile encoded the same record in the same block.
    /// Returns the bytes and how many devices were copied.
    ///
    /// The block is stored under `key` (its first id; by default its first record's), and marked as holding
    /// every device of `origin`, its graph and visibility, when given: one encoded anew is stored with it, and
    /// one found whole, of an older graph, is marked for `origin`.
    static func encode(
        _ records: [DeviceRecord], revision: UInt64, cache: SnapshotCache, key: String? = nil,
        origin: SnapshotCache.Origin? = nil
    ) -> (bytes: [UInt8], reused: Int) {
        var bytes: [UInt8] = []
        guard cache.isSharing, let key = key ?? records.first?.id, !records.isEmpty else {
            for index in records.indices { records[index].appendFramedChange(revision: revision, to: &bytes) }
            return (bytes, 0)
        }
        let stored = cache.block(startingAt: key)
        // The block as this snapshot sends it, to be stored: started at the first device that must be encoded
        // (copying those before it), so a block found whole costs no copy and stays empty.
        var fresh = SnapshotCache.Block()
        var reused = 0
        // By index, the records read where they are: iterating the array copied each one (a retain and a
        // release of each of its strings and arrays), 7 % of the hub's samples while ten watchers joined.
        for index in records.indices {
            if let device = stored?.device(at: index, matching: records[index]) {
                DeviceRecord.appendFramedChange(revision: revision, device: device, to: &bytes)
                if !fresh.records.isEmpty { fresh.append(records[index], device: device) }
                reused += 1
                continue
            }
            if fresh.records.isEmpty, let stored {
                for earlier in 0..<index { fresh.append(records[earlier], device: stored.device(at: earlier)) }
            }
            DeviceRecord.appendFramedChange(revision: revision, device: fresh.appendEncoded(records[index]), to: &bytes)
        }
        if !fresh.records.isEmpty {
            fresh.origin = origin
            cache.store(fresh, at: key)
        } else if let origin, let stored, stored.records.count == records.count,
            stored.origin?.visibility == origin.visibility
        {
            // Every device found stored, and no more: the block is this graph's too.
            cache.restamp(key, stored: stored, to: origin)
        }
        return (bytes, reused)
    }

    /// The block starting at `key` as framed changes at `revision`, with its device count, when `cache` holds
    /// it whole for `origin` (the same devices and visibility): no device is looked up, copied or compared. The
    /// nine of ten watchers joining together that find a block another encoded used to look up each of its
    /// devices in the graph, copy the record and compare it: a third of the hub's CPU while they joined.
    static func encodeStored(
        _ key: String, origin: SnapshotCache.Origin, revision: UInt64, cache: SnapshotCache
    ) -> (bytes: [UInt8], count: Int)? {
        guard let stored = cache.block(startingAt: key, origin: origin) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(stored.bytes.count + stored.records.count * 16)
        stored.bytes.withUnsafeBufferPointer { all in
            var start = 0
            for end in stored.ends {
                DeviceRecord.appendFramedChange(
                    revision: revision, device: UnsafeBufferPointer(rebasing: all[start..<end]), to: &bytes)
                start = end
            }
        }
        return (bytes, stored.records.count)
    }
}

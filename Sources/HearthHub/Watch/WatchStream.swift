import HearthModel
import HearthProto
import NIOCore
import SwiftProtobuf

/// One watch stream: snapshot or resume, then live changes from the shared ``ChangeLog``, progress marks
/// when idle, coalescing when the watcher falls behind.
struct WatchStream {
    /// Settings; each default is documented beside it.
    struct Configuration: Sendable {
        /// A response is cut (at a revision boundary) once it holds this many bytes.
        var maxResponseBytes = 256 * 1024
        /// Entries read per response in normal operation.
        var batchEntries = 1024
        /// A backlog longer than this is coalesced: newest state per object, every event.
        var coalesceAbove = 4096
        /// Silence after which a progress mark is sent, unless the request sets its own.
        var progressInterval: Duration = .seconds(5)
    }

    let log: ChangeLog
    let filter: WatchFilter
    let epoch: String
    let configuration: Configuration
    let metrics: HubMetrics
    let send: @Sendable ([UInt8]) async throws -> Void
    /// Shared by the engine's watchers: how many build snapshot chunks at once.
    let snapshotGate: SnapshotGate

    /// Runs until the client goes away (cancellation) or a relist is needed.
    func run(start: WatchStart, progressInterval: Duration?) async throws {
        if case .relist(let relist) = start {
            var response = Hearth_V1_WatchResponse()
            response.relist = relist
            response.epoch = relist.epoch
            response.revision = relist.oldestResumable
            try await send(try response.serializedBytes())
            return
        }
        let idle = progressInterval ?? configuration.progressInterval
        let doorbell = log.subscribe()
        defer { log.unsubscribe(doorbell) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Rings often enough that a silence of `idle` is noticed within a quarter of it.
            group.addTask {
                while (try? await Task.sleep(for: idle / 4)) != nil { doorbell.ring.yield() }
            }
            try await pump(start: start, idle: idle, rings: doorbell.rings)
            group.cancelAll()
        }
    }

    private func pump(start: WatchStart, idle: Duration, rings: AsyncStream<Void>) async throws {
        var rings = rings.makeAsyncIterator()
        var cursor: UInt64
        switch start {
        case .relist:
            return
        case .resume(let from):
            cursor = from
            try await send(WatchResponseBytes().finished(revision: cursor, epoch: epoch))
        case .snapshot(let graph, let revision):
            while log.published < revision {
                guard await rings.next() != nil else { return }
            }
            try await sendSnapshot(graph, revision: revision)
            cursor = revision
        }
        var lastSent = ContinuousClock.now
        while true {
            let read = log.read(
                after: cursor, limit: configuration.batchEntries, readAllAbove: configuration.coalesceAbove)
            switch read {
            case .evicted:
                var response = Hearth_V1_WatchResponse()
                response.relist.reason = .tooOld
                response.relist.epoch = epoch
                response.relist.oldestResumable = log.oldestResumable
                response.revision = cursor
                try await send(try response.serializedBytes())
                return
            case .entries(let entries, _, _) where entries.isEmpty:
                if ContinuousClock.now - lastSent >= idle {
                    try await send(WatchResponseBytes().finished(revision: cursor))
                    lastSent = .now
                }
                guard await rings.next() != nil else { return }  // nil: the call was cancelled
            case .entries(let entries, let through, let coalesce):
                metrics.recordWatchRead(backlog: log.published &- cursor, coalesced: coalesce)
                if try await deliver(coalesce ? Self.coalesced(entries) : entries, through: through) {
                    lastSent = .now
                }
                cursor = through
            }
        }
    }

    /// Sends what the watcher may see of `entries` in responses of bounded size, cutting only between
    /// revisions. Returns whether anything was sent.
    private func deliver(_ entries: [LogEntry], through: UInt64) async throws -> Bool {
        var sent = false
        var response = WatchResponseBytes()
        var index = 0
        while index < entries.count {
            let revision = entries[index].revision
            while index < entries.count, entries[index].revision == revision {
                let entry = entries[index]
                switch filter.verdict(entry) {
                case .show: response.append(framedChange: entry.framed)
                case .movedOut: response.append(framedChange: entry.framedMovedOut ?? [])
                case .hide: break
                }
                index += 1
            }
            if response.byteCount >= configuration.maxResponseBytes, index < entries.count {
                try await send(response.finished(revision: revision))
                sent = true
                response = WatchResponseBytes()
            }
        }
        if !response.isEmpty {
            try await send(response.finished(revision: through))
            sent = true
        }
        return sent
    }

    /// The newest entry per object, and every event, in revision order.
    static func coalesced(_ entries: [LogEntry]) -> [LogEntry] {
        var last: [CoalesceKey: Int] = [:]
        for (index, entry) in entries.enumerated() {
            if let key = entry.key { last[key] = index }
        }
        return entries.enumerated().compactMap { index, entry in
            guard let key = entry.key else { return entry }
            return last[key] == index ? entry : nil
        }
    }

    /// The graph as changes at `revision`, encoded as they are sent, in bounded responses; the last is
    /// marked synced. Intermediate responses carry revision 0: a stream cut there restarts from 0.
    /// Devices encoded per block of a snapshot: about 200 KB of response for small devices.
    static let snapshotBlock = 1024

    private func sendSnapshot(_ graph: HomeGraph, revision: UInt64) async throws {
        var response = WatchResponseBytes()
        var first = true
        // Chunks are built holding a slot of the gate and sent without it.
        await snapshotGate.acquire()
        var holding = true
        defer { if holding { snapshotGate.release() } }
        func add(_ kind: Hearth_V1_Change.OneOf_Kind) async throws {
            var change = Hearth_V1_Change()
            change.revision = revision
            change.kind = kind
            response.append(framedChange: LogEntry.frame(try change.serializedBytes()))
            if response.byteCount >= configuration.maxResponseBytes {
                let chunk = response.finished(revision: 0, epoch: first ? epoch : nil)
                first = false
                response = WatchResponseBytes()
                snapshotGate.release()
                holding = false
                try await send(chunk)
                await snapshotGate.acquire()
                holding = true
            }
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
        let ids = graph.devices.keys.sorted()
        let filter = self.filter
        var start = 0
        while start < ids.count {
            let round = min(ids.count, start + Self.snapshotBlock * System.coreCount)
            let blocks = try await withThrowingTaskGroup(of: (Int, [UInt8], Int).self) { group in
                for (index, blockStart) in stride(from: start, to: round, by: Self.snapshotBlock).enumerated() {
                    let blockIDs = ids[blockStart..<min(round, blockStart + Self.snapshotBlock)]
                    group.addTask {
                        await self.snapshotGate.acquire()
                        defer { self.snapshotGate.release() }
                        var bytes: [UInt8] = []
                        var count = 0
                        for id in blockIDs {
                            guard let device = graph.devices[id], filter.sees(device) else { continue }
                            // Written straight from the record (DeviceRecord.appendFramedChange), not through
                            // a Hearth_V1_Device tree and swift-protobuf.
                            device.appendFramedChange(revision: revision, to: &bytes)
                            count += 1
                        }
                        return (index, bytes, count)
                    }
                }
                var blocks: [(Int, [UInt8], Int)] = []
                for try await block in group { blocks.append(block) }
                return blocks.sorted { $0.0 < $1.0 }
            }
            for (_, bytes, count) in blocks where count > 0 {
                response.append(framedChanges: bytes, count: count)
                if response.byteCount >= configuration.maxResponseBytes {
                    let chunk = response.finished(revision: 0, epoch: first ? epoch : nil)
                    first = false
                    response = WatchResponseBytes()
                    try await send(chunk)
                }
            }
            start = round
        }
        let last = response.finished(revision: revision, synced: true, epoch: first ? epoch : nil)
        try await send(last)
    }
}

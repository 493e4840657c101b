import HearthModel
import HearthProto
import HearthWire
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
    /// Shared by the engine's watchers: devices encoded by a snapshot, for the others sent meanwhile.
    let snapshotCache: SnapshotCache

    /// Runs until the client goes away (cancellation) or a relist is needed.
    /// - Parameter updateInterval: the least time between two responses that carry changes (the request's
    ///   `update_interval_ms`); zero sends each change as soon as it is read.
    func run(start: WatchStart, progressInterval: Duration?, updateInterval: Duration) async throws {
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
            try await pump(start: start, idle: idle, interval: updateInterval, rings: doorbell.rings)
            group.cancelAll()
        }
    }

    private func pump(start: WatchStart, idle: Duration, interval: Duration, rings: AsyncStream<Void>) async throws {
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
            case .entries where interval > .zero && ContinuousClock.now < lastSent + interval:
                // Too soon after the last response: wait out the interval, then read again, gathering what
                // came meanwhile into one response. Cancelled: the call has ended, as when a ring is nil. On
                // the loop's own timer: a `Task.sleep` woke a dispatch thread and then the loop, per response.
                guard (try? await sleepOnEventLoop(until: lastSent + interval)) != nil else { return }
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
}

import HearthModel
import HearthProto
import HearthWire

extension Home {
    /// Why a watch stream ended early.
    private enum WatchEnd: Error {
        /// The hub cannot resume from the cache's revision: list again from 0.
        case relist
    }

    /// Keeps the cache fed until the home closes: watch, and on loss reconnect (with backoff) from the last
    /// revision applied.
    func watchLoop() async {
        var attempt = 0
        var relist = false
        while !Task.isCancelled {
            do {
                try await watchOnce(fromScratch: relist) { attempt = 0 }
                relist = false
            } catch WatchEnd.relist {
                relist = true
                continue
            } catch let error as RPCError where [.unauthenticated, .permissionDenied].contains(error.code) {
                store.end(HomeError(error))  // the token is refused: retrying cannot help
                return
            } catch {
                if Task.isCancelled { return }
                store.noteConnectionError(error)
            }
            let wait = configuration.reconnect.delay(attempt: attempt, random: .random(in: 0...1))
            attempt += 1
            try? await Task.sleep(for: wait)
        }
    }

    /// The most devices a snapshot's announced size reserves room for (about 13 MB of table).
    static let largestReservedSnapshot: UInt64 = 1 << 18

    /// Responses applied as one update at most: what has arrived while the last update was applied, up to
    /// this many, so that a subscriber never waits behind a long run of them.
    static let responsesPerUpdate = 64

    /// An ``Configuration/updateInterval`` in whole milliseconds, rounded up (a non-zero interval stays
    /// non-zero); the range was checked by `connect`.
    static func milliseconds(_ interval: Duration) -> UInt32 {
        UInt32((interval / .milliseconds(1)).rounded(.up))
    }

    /// One watch stream. From 0 (first time, or after a re-list) it builds a whole new snapshot and swaps
    /// it in at the synced mark, with the differences to the old one as the update; otherwise it resumes
    /// and applies each response, with those that arrived meanwhile, as one update.
    ///
    /// The snapshot is built on the global executor (a large home takes long enough to hold up the
    /// connection's other calls); the changes after it are applied on the connection's event loop, where
    /// they arrive: a response then costs no wake-up of another thread and no hand-over.
    private func watchOnce(fromScratch: Bool, onSynced: () -> Void) async throws {
        let current = store.snapshot
        let resuming = current.synced && !fromScratch
        var request = Hearth_V1_WatchRequest()
        request.updateIntervalMs = Self.milliseconds(configuration.updateInterval)
        if resuming {
            request.fromRevision = current.revision
            request.epoch = current.epoch
        }
        var options = callOptions
        options.timeout = nil  // a watch lasts as long as the home
        try await client.serverStreamingCall(WatchBatch.watch, request: request, options: options) { call in
            var iterator = call.responses.makeAsyncIterator()
            if !resuming {
                guard try await buildSnapshot(&iterator) else { return }
            }
            onSynced()
            try await withTaskExecutorPreference(call.executor) {
                try await applyChanges(&iterator)
            }
        }
    }

    /// Builds a new snapshot from the stream's first responses and publishes it at the synced mark, with
    /// the differences to the old one as the update. False when the stream ended before the mark.
    private func buildSnapshot(_ iterator: inout RequestStream<WatchBatch>.AsyncIterator) async throws -> Bool {
        var fresh = HomeSnapshot()
        while let response = try await iterator.next() {
            if response.relist { throw WatchEnd.relist }
            // Sized once when the hub says how many devices come (a table grown by doubling hashed every id
            // again at each step: 8 % of a client joining 100,000 devices). Bounded, as the hub is not trusted
            // with the client's memory: a larger home grows past it as it would have.
            if response.snapshotDevices > 0, fresh.devices.count == 0 {
                fresh.devices.reserveCapacity(Int(min(response.snapshotDevices, Self.largestReservedSnapshot)))
            }
            fresh.apply(response)
            // What the snapshot's own responses change is not an update anyone sees (the update is the
            // difference to the old cache, made at the synced mark): keep no record of it.
            fresh.delta = HomeSnapshot.Delta()
            if !response.epoch.isEmpty { fresh.epoch = response.epoch }
            guard response.synced else { continue }
            let old = store.snapshot
            fresh.synced = true
            fresh.sequence = old.sequence + 1
            fresh.delta = old.synced ? old.differences(to: fresh) : HomeSnapshot.Delta()
            store.publish(fresh)
            return true
        }
        return false
    }

    /// Applies each response, with those that arrived meanwhile, as one update, until the stream ends.
    private func applyChanges(_ iterator: inout RequestStream<WatchBatch>.AsyncIterator) async throws {
        while let response = try await iterator.next() {
            if response.relist { throw WatchEnd.relist }
            var next = store.snapshot
            next.delta = HomeSnapshot.Delta()
            next.apply(response)
            // Responses that arrived meanwhile go into the same update: one publication (a store lock, a
            // wake-up per interested feed) for all of them. Subscribers see the union of the changes, as a
            // busy subscriber does anyway.
            var taken = 1
            var ended: (any Error)?
            do {
                while taken < Self.responsesPerUpdate, let more = try iterator.nextIfArrived() {
                    // What came before a re-list is published first: its events would not come back with
                    // the re-list, which restores state only.
                    if more.relist {
                        ended = WatchEnd.relist
                        break
                    }
                    next.apply(more)
                    taken += 1
                }
            } catch {
                ended = error
            }
            // Published even when the stream failed meanwhile: the changes applied are already in the
            // devices' entries (updated in place), so a resume would not report them again.
            if !next.delta.isEmpty { next.sequence += 1 }
            store.publish(next)
            if let ended { throw ended }
        }
    }
}

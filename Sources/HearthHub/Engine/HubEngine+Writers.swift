import DequeModule
import HearthModel
import Logging
import NIOCore
import NIOPosix

/// Recording changes, publishing them in revision order, and the two writers behind them: the durable
/// metadata commit and the trait-state saver.
extension HubEngine {
    /// Gives `changes` the next revision; publishes them at once on the state path (unless an earlier
    /// revision still waits for its commit), or after the next durable commit on the metadata path. The
    /// graph must already hold their new values.
    @discardableResult
    func record(_ changes: [GraphChange], path: ChangePath) throws -> UInt64 {
        let revision = graph.nextRevision()
        let entries = try changes.map { try $0.logEntry(revision: revision) }
        switch path {
        case .metadata: holdForCommit(changes)
        case .state: markUnsaved(changes, entries)
        }
        // A revision beyond the durable reservation must wait for the reservation, like metadata.
        let needsCommit = path == .metadata || revision > reserved
        if !needsCommit, held.isEmpty {
            changeLog.publish(entries, through: revision)
            metrics.recordPublished(changes: entries.count)
        } else {
            held.append(
                contentsOf: entries.map { HeldEntry(entry: $0, needsCommit: needsCommit, metadata: path == .metadata) })
            if needsCommit { heldForCommit += entries.count }
        }
        if needsCommit || revision + Self.revisionBlock / 2 > reserved { commitSignal.yield() }
        return revision
    }

    private func holdForCommit(_ changes: [GraphChange]) {
        var removed: Set<String> = []
        for change in changes {
            switch change {
            case .structure(let s):
                metadata.structures[s.id] = s
            case .room(let r):
                metadata.rooms[r.id] = r
                metadata.removedRooms.remove(r.id)
            case .roomRemoved(let id, _):
                metadata.rooms[id] = nil
                metadata.removedRooms.insert(id)
            case .device(let d, _), .trait(let d, _, _):
                metadata.devices[d.id] = graph.devices[d.id] ?? d
                metadata.removedDevices.remove(d.id)
            case .deviceRemoved(let d):
                metadata.devices[d.id] = nil
                metadata.removedDevices.insert(d.id)
                removed.insert(d.id)
            case .event:
                break
            }
        }
        // A removed device's unsaved states must not be written after its rows are deleted: one pass for
        // all of this record's removals.
        if !removed.isEmpty { unsaved = unsaved.filter { !removed.contains($0.key.deviceID) } }
    }

    /// `entries` are the changes' log entries, one per change in the same order.
    private func markUnsaved(_ changes: [GraphChange], _ entries: [LogEntry]) {
        var any = false
        for (change, entry) in zip(changes, entries) {
            switch change {
            case .trait(let d, let endpoint, let trait):
                let state = TraitState(deviceID: d.id, endpoint: endpoint, trait: trait, change: entry.change)
                unsaved[state.key] = state
                any = true
            case .device(let d, _):
                for type in d.types {
                    for trait in type.traits {
                        let state = TraitState(deviceID: d.id, endpoint: type.endpoint, trait: trait)
                        unsaved[state.key] = state
                        any = true
                    }
                }
            case .event, .structure, .room, .roomRemoved, .deviceRemoved:
                break
            }
        }
        if any { armSave() }
    }

    /// Makes sure a save follows within the save interval, without waking a thread on the way to a
    /// command's answer.
    ///
    /// The saver used to be woken by every first state after a quiet spell and to sleep out the interval
    /// itself: waking it (a pool thread, then libdispatch's timer thread for its sleep) ran on the CPU of
    /// the driver's event loop before that loop handed the driver's answer on, about 45 µs on the round
    /// trip of every command at a person's pace. When the engine runs on an event loop thread (as it does
    /// when a connection's task calls it while it is idle: a driver's report, a command's answer), the
    /// interval is now a timer of that loop, armed without a wake-up; the saver is woken when it fires, off
    /// any command's path. Elsewhere (the engine drained by a pool thread, tests and tools calling it from
    /// a plain task) the saver sleeps out the interval as before.
    private func armSave() {
        guard !saveArmed else { return }
        saveArmed = true
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else {
            saveSignal.yield(true)
            return
        }
        saveTimers += 1
        let signal = saveSignal
        // A timer that cannot run (its loop shutting down) still wakes the saver: nothing may stay unsaved.
        loop.scheduleTask(in: TimeAmount(configuration.stateSaveInterval)) { signal.yield(false) }
            .futureResult.whenFailure { _ in signal.yield(false) }
    }

    /// Waits until every metadata change recorded so far is on disk and everything recorded so far is
    /// published.
    func awaitCommit() async throws {
        if stopped {
            // run() has returned (shutdown), so nothing else commits: a driver disconnecting or a call
            // finishing during shutdown commits its own change here, once.
            if let error = await commitMetadata(retrying: false) {
                throw HubError(.unavailable, "the hub is stopping and could not store the change (\(error))")
            }
            return
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            metadata.waiters.append(continuation)
            commitSignal.yield()
        }
    }

    /// Back-pressure for drivers: when more changes wait behind a metadata commit than
    /// ``Configuration/maxPendingChanges`` (the disk is slow), the reporting driver waits for that commit.
    /// Its stream stops being read, HTTP/2 flow control holds its writer, and the driver coalesces meanwhile.
    func throttle() async throws {
        if held.count > maxPendingChanges { try await awaitCommit() }
    }

    /// Reserves the first block of revisions durably before anything is recorded.
    func reserveRevisions() async throws {
        let through = graph.revision + Self.revisionBlock
        try await store.open(reserveThrough: through)
        reserved = through
    }
}

// MARK: - The writers

extension HubEngine {
    /// Runs the metadata committer and the state saver until cancelled; then commits and saves what is
    /// left and stores the change log for watchers resuming after the restart (a clean stop).
    public func run() async throws {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.commitLoop() }
                group.addTask { await self.saveLoop() }
            }
        } onCancel: {
            commitSignal.finish()
            saveSignal.finish()
        }
        stopped = true
        await commitMetadata(retrying: false)
        await saveStates()
        guard held.isEmpty else {
            logger.error("hub.close.unclean", metadata: ["held": "\(held.count)"])
            return
        }
        do {
            try await store.close(log: changeLog.entries, revision: changeLog.published)
        } catch {
            logger.error("hub.close.failed", metadata: ["error": "\(error)"])
        }
    }

    private func commitLoop() async {
        for await _ in commitSignals { await commitMetadata() }
    }

    private func saveLoop() async {
        for await gather in saveSignals {
            // Let states gather: the newest of each is saved once per interval, however often it changed.
            if gather { try? await Task.sleep(for: configuration.stateSaveInterval) }
            await saveStates()
        }
    }

    /// Whether a durable commit has work: metadata, entries waiting for one, or a reservation running low.
    private var commitDue: Bool {
        !metadata.isEmpty || heldForCommit > 0 || graph.revision + Self.revisionBlock / 2 > reserved
    }

    /// Commits pending metadata (and extends the revision reservation) in one durable transaction, then
    /// publishes what waited for it. A failed commit refuses its changes (``refuse(_:because:)``); unless
    /// `retrying` is false, the writer then tries an empty commit every second until the disk takes one
    /// (the reservation, and the fault's end). Returns the last failure, if the loop ended on one.
    @discardableResult
    func commitMetadata(retrying: Bool = true) async -> (any Error)? {
        while commitDue || (retrying && faults[.metadata] != nil) {
            let taken = metadata
            metadata = PendingMetadata()
            let through = graph.revision
            let reserveThrough =
                through + Self.revisionBlock / 2 > reserved ? through + Self.revisionBlock : reserved
            let batch = MetadataBatch(
                structures: Array(taken.structures.values), rooms: Array(taken.rooms.values),
                removedRooms: Array(taken.removedRooms), devices: Array(taken.devices.values),
                removedDevices: Array(taken.removedDevices), reserveThrough: reserveThrough)
            do {
                let started = ContinuousClock.now
                try await store.commit(batch)  // completes even if this task is cancelled (HubStore)
                metrics.recordCommit(duration: ContinuousClock.now - started, changes: batch.count)
                reserved = max(reserved, reserveThrough)
                storageRecovered(.metadata)
                publishHeld(through: through)
                for waiter in taken.waiters { waiter.resume() }
            } catch {
                storageFailed(.metadata, error)
                // Everything recorded behind the failed batch was built on it: refuse it all.
                var failed = taken
                failed.absorb(metadata)
                metadata = PendingMetadata()
                refuse(failed, because: error)
                guard retrying, !Task.isCancelled else { return error }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        return nil
    }

    /// Publishes held entries now allowed out: up to the first one that waits for a commit after `through`.
    func publishHeld(through: UInt64) {
        var ready: [LogEntry] = []
        while let first = held.first, !first.needsCommit || first.entry.revision <= through {
            held.removeFirst()
            if first.needsCommit { heldForCommit -= 1 }
            ready.append(first.entry)
        }
        guard let last = ready.last else { return }
        changeLog.publish(ready, through: last.revision)
        metrics.recordPublished(changes: ready.count)
    }


    /// Saves the newest unsaved trait states in one transaction without waiting for the disk to sync.
    /// A failure keeps them for the next save (a newer state of the same trait wins).
    func saveStates() async {
        saveArmed = false  // a state published from here on arms the next save
        guard !unsaved.isEmpty else { return }
        let taken = unsaved
        unsaved = [:]
        // The next save's batch is about as large: room for it at once, or the dictionary grows from empty
        // by doubling, hashing every key again at each step (1 % of the hub's CPU at 50,000 reports/s).
        unsaved.reserveCapacity(taken.count)
        do {
            try await store.save(StateBatch(states: taken))
            storageRecovered(.state)
        } catch {
            storageFailed(.state, error)
            logger.error("hub.state_save.failed", metadata: ["error": "\(error)", "traits": "\(taken.count)"])
            unsaved.merge(taken) { newer, _ in newer }
            guard !stopped else { return }
            try? await Task.sleep(for: .milliseconds(200))
            saveSignal.yield(false)
        }
    }
}

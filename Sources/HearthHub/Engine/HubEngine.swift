public import Foundation
public import HearthModel
public import HearthProto
public import Logging

/// The hub's engine: the one owner of the home graph.
///
/// Every change gets the next revision, goes into the current group commit, and is published to watchers
/// only after SQLite has it on disk; a mutation returns only then. Run ``run()`` for the commit loop (the hub
/// executable runs it as a service).
///
/// ```swift
/// let engine = try await HubEngine.open(configuration: .init(dataDirectory: url))
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { try await engine.run() }
///     let room = try await engine.createRoom(in: "home", name: "Kitchen", by: admin)
/// }
/// ```
public actor HubEngine {
    /// The engine's settings; each default is documented beside it.
    public struct Configuration: Sendable {
        /// Where `hub.sqlite` lives.
        public var dataDirectory: URL
        /// Changes kept in memory (and in SQLite) for resuming watches and for slow watchers; at least 1.
        public var retainedChanges = 100_000
        /// Changes recorded but not yet committed beyond which a driver's report waits for the commit
        /// (back-pressure). At most half of ``retainedChanges``. Default 10 000.
        public var maxPendingChanges = 10_000
        /// Structures created on first start (id, name); devices a driver announces go into the first.
        public var initialStructures: [(id: String, name: String)] = [("home", "Home")]
        /// The catalog writes, commands and reports are checked against.
        public var catalog = Catalog.builtin
        /// Size and nesting limits on what drivers and clients send to be parsed (vendor schemas).
        public var inputLimits = InputLimits.defaults

        public init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
        }
    }

    /// What the next group commit writes: the log entries, and the newest value of each changed object.
    struct Pending {
        var log: [LogEntry] = []
        var structures: [String: StructureRecord] = [:]
        var rooms: [String: RoomRecord] = [:]
        var devices: [String: DeviceRecord] = [:]
        var removedRooms: Set<String> = []
        var removedDevices: Set<String> = []
        var waiters: [CheckedContinuation<Void, any Error>] = []
        var isEmpty: Bool { log.isEmpty && waiters.isEmpty }
    }

    let configuration: Configuration
    let store: any HubStore
    nonisolated let changeLog: ChangeLog
    var graph: HomeGraph
    var validator: Validator
    var pending = Pending()
    /// The stored change log holds nothing at or below this revision.
    var prunedThrough: UInt64 = 0
    var connectedDrivers: Set<String> = []
    /// ``Configuration/maxPendingChanges``, at most half the retained log.
    nonisolated let maxPendingChanges: Int
    let logger: Logger
    /// Counters and histograms the engine and its watch streams update.
    public nonisolated let metrics: HubMetrics
    private let commitSignal: AsyncStream<Void>.Continuation
    private let commitSignals: AsyncStream<Void>
    /// Set when ``run()`` has returned; from then on ``awaitCommit()`` commits by itself.
    private var stopped = false

    /// The epoch of the data directory.
    public nonisolated let epoch: String

    init(configuration: Configuration, store: any HubStore, stored: StoredHome, logger: Logger, metrics: HubMetrics)
        throws
    {
        self.configuration = configuration
        self.metrics = metrics
        self.store = store
        self.logger = logger
        self.epoch = stored.epoch
        var graph = HomeGraph(epoch: stored.epoch, revision: stored.revision)
        for s in stored.structures { graph.structures[s.id] = s }
        for r in stored.rooms { graph.rooms[r.id] = r }
        for d in stored.devices { graph.devices[d.id] = d }
        self.graph = graph
        self.validator = Validator(catalog: configuration.catalog)
        let history = try stored.log.map {
            try LogEntry(stored: $0.change, previousStructureID: $0.previousStructureID, graph: graph)
        }
        self.changeLog = ChangeLog(capacity: configuration.retainedChanges, published: stored.revision, history: history)
        maxPendingChanges = max(1, min(configuration.maxPendingChanges, configuration.retainedChanges / 2))
        (commitSignals, commitSignal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Opens the data directory (creating it) and loads the home.
    /// - Parameter metrics: where the engine counts commits and watch deliveries; the ``Hub`` passes its own.
    public static func open(
        configuration: Configuration, logger: Logger = Logger(label: "hearth.hub"), metrics: HubMetrics = HubMetrics()
    ) async throws -> HubEngine {
        let store = try SQLiteStore(directory: configuration.dataDirectory)
        let stored = try await store.load()
        let engine = try HubEngine(
            configuration: configuration, store: store, stored: stored, logger: logger, metrics: metrics)
        await engine.prepareAfterLoad()
        return engine
    }

    /// First start: the configured structures. Every start: last known trait state becomes unconfirmed with
    /// unknown connectivity until its driver reports again (one revision, so resuming watchers see it).
    private func prepareAfterLoad() {
        let revision = upcomingRevision
        var changes: [GraphChange] = []
        for (id, name) in configuration.initialStructures where graph.structures[id] == nil {
            let structure = StructureRecord(id: id, name: Names.cut(name), revision: revision)
            graph.structures[id] = structure
            changes.append(.structure(structure))
        }
        for var device in graph.devices.values.sorted(by: { $0.id < $1.id })
        where device.setAllTraits(connectivity: .unknown, confirmed: false, revision: revision) {
            graph.devices[device.id] = device
            changes.append(.device(device, previousStructureID: device.structureID))
        }
        if !changes.isEmpty { _ = try? record(changes) }
    }

    /// The revision the next ``record(_:)`` gives out; records built for it carry it.
    var upcomingRevision: UInt64 { graph.revision + 1 }

    /// Commits and publishes changes until cancelled; then commits what is pending and returns.
    public func run() async throws {
        await withTaskCancellationHandler {
            for await _ in commitSignals {
                await commitPending()
            }
        } onCancel: {
            commitSignal.finish()
        }
        stopped = true
        await commitPending()
    }

    /// Commits everything pending in one transaction, then publishes it. Retries a failed commit until it
    /// succeeds unless `retrying` is false; then returns the failure (its data stays pending).
    @discardableResult
    private func commitPending(retrying: Bool = true) async -> (any Error)? {
        while !pending.isEmpty {
            let taken = pending
            pending = Pending()
            let through = taken.log.last?.revision ?? changeLog.published
            let prune = changeLog.oldestResumable
            let batch = StoreBatch(
                revision: through, structures: Array(taken.structures.values), rooms: Array(taken.rooms.values),
                removedRooms: Array(taken.removedRooms), devices: Array(taken.devices.values),
                removedDevices: Array(taken.removedDevices), log: taken.log,
                pruneLogThrough: prune > prunedThrough ? prune : 0)
            do {
                if !batch.isEmpty {
                    let started = ContinuousClock.now
                    try await store.commit(batch)  // completes even if this task is cancelled (HubStore)
                    metrics.recordCommit(duration: ContinuousClock.now - started, changes: batch.log.count)
                }
                changeLog.publish(batch.log, through: through)
                metrics.recordPublished(changes: batch.log.count)
                prunedThrough = max(prunedThrough, batch.pruneLogThrough)
                for waiter in taken.waiters { waiter.resume() }
            } catch {
                logger.error("hub.commit.failed", metadata: ["error": "\(error)"])
                for waiter in taken.waiters {
                    waiter.resume(
                        throwing: HubError(
                            .unavailable, "the hub could not store the change yet (\(error)); it keeps retrying"))
                }
                // Nothing of the batch was published; keep its data for the next attempt.
                merge(back: taken)
                // Cancelled (shutting down) or asked not to: one attempt only; a cancelled sleep would spin.
                guard retrying, !Task.isCancelled else { return error }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        return nil
    }

    private func merge(back taken: Pending) {
        var merged = taken
        merged.waiters = pending.waiters
        merged.log.append(contentsOf: pending.log)
        merged.structures.merge(pending.structures) { _, new in new }
        merged.rooms.merge(pending.rooms) { _, new in new }
        merged.devices.merge(pending.devices) { _, new in new }
        merged.removedRooms.formUnion(pending.removedRooms)
        merged.removedDevices.formUnion(pending.removedDevices)
        pending = merged
        commitSignal.yield()
    }

    /// Gives `changes` the next revision and adds them to the pending commit. The graph must already hold
    /// their new values.
    @discardableResult
    func record(_ changes: [GraphChange]) throws -> UInt64 {
        let revision = graph.nextRevision()
        for change in changes {
            pending.log.append(try change.logEntry(revision: revision))
            switch change {
            case .structure(let s):
                pending.structures[s.id] = s
            case .room(let r):
                pending.rooms[r.id] = r
                pending.removedRooms.remove(r.id)
            case .roomRemoved(let id, _):
                pending.rooms[id] = nil
                pending.removedRooms.insert(id)
            case .device(let d, _), .trait(let d, _, _):
                pending.devices[d.id] = graph.devices[d.id] ?? d
                pending.removedDevices.remove(d.id)
            case .deviceRemoved(let d):
                pending.devices[d.id] = nil
                pending.removedDevices.insert(d.id)
            case .event:
                break
            }
        }
        commitSignal.yield()
        return revision
    }

    /// Waits until everything recorded so far is committed and published.
    func awaitCommit() async throws {
        if stopped {
            // run() has returned (shutdown), so nothing else commits: a driver disconnecting or a call
            // finishing during shutdown commits its own change here, once.
            if let error = await commitPending(retrying: false) {
                throw HubError(.unavailable, "the hub is stopping and could not store the change (\(error))")
            }
            return
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            pending.waiters.append(continuation)
            commitSignal.yield()
        }
    }

    /// The hub's epoch and newest committed revision.
    public func info() -> (epoch: String, revision: UInt64) { (graph.epoch, changeLog.published) }

    /// Figures describing the engine now, for the metrics page.
    public func statistics() -> (revision: UInt64, devices: Int, connectedDrivers: Int) {
        (changeLog.published, graph.devices.count, connectedDrivers.count)
    }
}

public import Foundation
public import HearthModel
public import HearthProto
public import Logging
import DequeModule
import NIOCore

/// The hub's engine: the one owner of the home graph.
///
/// Every change gets the next revision. Two paths (`Docs/Hub.md`, "Two paths"): a metadata change (names,
/// rooms, structures, membership, registration, removal) is committed durably before it is published or
/// acknowledged; trait state, connectivity and events are published to watchers at once, from memory, and
/// the newest state per trait is saved behind them. Watchers see revisions strictly in order, so a state
/// change recorded while a metadata commit is on its way to disk is published right after it. Run ``run()``
/// for the writers (the hub executable runs it as a service).
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
        /// Changes kept in memory for resuming watches and for slow watchers (and stored at a clean stop);
        /// at least 1.
        public var retainedChanges = 100_000
        /// The memory those changes may hold at most, in bytes; the oldest go first when either bound is
        /// reached. A change of a whole device (announcements, the restart's unconfirmed marks) weighs a few
        /// hundred bytes, a trait's new state under a hundred. Default 16 MiB.
        public var retainedChangeBytes = 16 * 1024 * 1024
        /// Changes waiting behind a metadata commit beyond which a driver's report waits for that commit
        /// (back-pressure while the disk is slow). At most half of ``retainedChanges``. Default 10 000.
        public var maxPendingChanges = 10_000
        /// How long trait states gather before the state writer saves the newest of each. Default 1 s.
        ///
        /// Each save is a transaction (its timer's wake-up, the saver's task, SQLite's locks and WAL writes)
        /// whatever it holds, so at a home's pace, where a save holds one or two states, its overhead is the
        /// cost: at 100 reports/s the hub spent 400 µs of CPU per report saving every 10 ms, 190-230 µs
        /// saving every second. States are not what a person typed: a process killed loses at most this
        /// much of them, shown from the last save as not yet confirmed until the drivers, reconnecting,
        /// report again.
        public var stateSaveInterval: Duration = .seconds(1)
        /// Structures created on first start (id, name); devices a driver announces go into the first.
        public var initialStructures: [(id: String, name: String)] = [("home", "Home")]
        /// The catalog writes, commands and reports are checked against.
        public var catalog = Catalog.builtin
        /// Size and nesting limits on what drivers and clients send to be parsed (vendor schemas).
        public var inputLimits = InputLimits.defaults
        /// How long the devices encoded for snapshots are kept after the last snapshot ended, for clients
        /// joining soon after (a reconnecting household comes back over a few seconds); zero empties the
        /// cache as each burst of snapshots ends. Default 10 s.
        public var snapshotCacheLinger: Duration = .seconds(10)

        public init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
        }
    }

    /// Which path a change takes.
    enum ChangePath {
        /// Committed durably before it is published (what a person typed, registration, removal).
        case metadata
        /// Published at once; the newest state per trait saved behind (reports, connectivity, events).
        case state
    }

    /// Metadata waiting for the next durable commit: the newest value of each changed object.
    struct PendingMetadata {
        var structures: [String: StructureRecord] = [:]
        var rooms: [String: RoomRecord] = [:]
        var devices: [String: DeviceRecord] = [:]
        var removedRooms: Set<String> = []
        var removedDevices: Set<String> = []
        var waiters: [CheckedContinuation<Void, any Error>] = []
        /// The values before these changes, for taking them back when their commit fails.
        var before = BeforeImages()
        var isEmpty: Bool {
            structures.isEmpty && rooms.isEmpty && devices.isEmpty && removedRooms.isEmpty && removedDevices.isEmpty
                && waiters.isEmpty
        }
    }

    /// A recorded entry not yet published, and whether it waits for a durable commit.
    struct HeldEntry {
        var entry: LogEntry
        var needsCommit: Bool
        /// A metadata change (its commit failing takes it back), not state waiting for a reservation.
        var metadata: Bool
    }

    /// Revisions reserved per durable reservation: a hub killed at any moment skips at most this many.
    static let revisionBlock: UInt64 = 1 << 20

    let configuration: Configuration
    let store: any HubStore
    nonisolated let changeLog: ChangeLog
    var graph: HomeGraph
    var validator: Validator
    var metadata = PendingMetadata()
    /// Entries recorded but not published: everything from the first one that waits for a commit on.
    var held: Deque<HeldEntry> = []
    /// How many entries of ``held`` wait for a commit.
    var heldForCommit = 0
    /// Trait states published but not yet saved, newest per trait.
    var unsaved: [TraitState.Key: TraitState] = [:]
    /// Revisions are reserved on disk through this one; none above it is published before it is.
    var reserved: UInt64
    var connectedDrivers: Set<String> = []
    /// ``Configuration/maxPendingChanges``, at most half the retained log.
    nonisolated let maxPendingChanges: Int
    let logger: Logger
    /// Counters and histograms the engine and its watch streams update.
    public nonisolated let metrics: HubMetrics
    let commitSignal: AsyncStream<Void>.Continuation
    let commitSignals: AsyncStream<Void>
    /// Wakes the state saver: `true` when it should first let states gather for the save interval itself,
    /// `false` when the interval has passed already (``armSave()``).
    let saveSignal: AsyncStream<Bool>.Continuation
    let saveSignals: AsyncStream<Bool>
    /// Whether a save is pending (a timer or a signal on its way): set by the first state published after a
    /// save started, cleared when the next save starts.
    var saveArmed = false
    /// Saves armed by an event loop's timer rather than by waking the saver (for tests).
    var saveTimers = 0
    /// Storage paths failing now, by path (`metadata`, `state`).
    var faults: [StoragePath: StorageFault] = [:]
    /// Set when ``run()`` has returned; from then on ``awaitCommit()`` commits by itself.
    var stopped = false

    /// The epoch of the data directory.
    public nonisolated let epoch: String
    /// How many watchers encode snapshot chunks at once (one per core): a storm of watchers from 0 cannot
    /// queue ahead of the drivers' reports.
    nonisolated let snapshotGate = SnapshotGate(limit: System.coreCount)
    /// Devices encoded once for every snapshot sent meanwhile (`Docs/Hub.md`, "Joining: snapshots encoded
    /// once, off the event loop").
    nonisolated let snapshotCache: SnapshotCache
    /// What the snapshot cache holds at most: a 100,000-device home's devices, about 85 MB as it counts them.
    static let snapshotCacheBytes = 96 * 1024 * 1024

    init(configuration: Configuration, store: any HubStore, stored: StoredHome, logger: Logger, metrics: HubMetrics)
        throws
    {
        self.configuration = configuration
        self.metrics = metrics
        self.store = store
        self.logger = logger
        self.epoch = stored.epoch
        // After an unclean stop, revisions up to the reservation may have been published and lost: start
        // past them, with no history, so every watcher that saw one of them is told to re-list.
        let start = stored.clean ? stored.revision : stored.reserved + 1
        var graph = HomeGraph(epoch: stored.epoch, revision: start)
        for s in stored.structures { graph.structures[s.id] = s }
        for r in stored.rooms { graph.rooms[r.id] = r }
        graph.reserveDevices(stored.devices.count)
        for d in stored.devices { graph.put(d) }
        for state in stored.traits { graph.restore(state) }
        self.graph = graph
        self.reserved = stored.clean ? stored.revision : start
        self.validator = Validator(catalog: configuration.catalog)
        self.snapshotCache = SnapshotCache(byteLimit: Self.snapshotCacheBytes, linger: configuration.snapshotCacheLinger)
        let history =
            stored.clean
            ? try stored.log.map {
                try LogEntry(
                    stored: $0.bytes, decoded: $0.change, previousStructureID: $0.previousStructureID, graph: graph)
            } : []
        self.changeLog = ChangeLog(
            capacity: configuration.retainedChanges, byteCapacity: configuration.retainedChangeBytes, published: start,
            history: history)
        maxPendingChanges = max(1, min(configuration.maxPendingChanges, configuration.retainedChanges / 2))
        (commitSignals, commitSignal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        (saveSignals, saveSignal) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(1))
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
        try await engine.reserveRevisions()
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
            stage(structure)
            changes.append(.structure(structure))
        }
        if !changes.isEmpty { _ = try? record(changes, path: .metadata) }
        let unconfirmed = upcomingRevision
        // A large home's marks are not logged: as many whole-device changes as devices would not fit the log's
        // byte bound anyway, and encoding them was a fifth of a 100k-device cold start. Resumes from before
        // re-list instead. Nor are they saved: every start marks every trait again. The devices change in
        // place, in no order.
        if graph.devices.count > Self.unconfirmedReplayLimit, held.isEmpty, unconfirmed <= reserved {
            let marked = graph.modifyAllDevices {
                $0.setAllTraits(connectivity: .unknown, confirmed: false, revision: unconfirmed)
            }
            if marked > 0 {
                _ = graph.nextRevision()
                changeLog.discontinue(at: unconfirmed)
            }
            return
        }
        changes = []
        for var device in graph.devices.values.sorted(by: { $0.id < $1.id })
        where device.setAllTraits(connectivity: .unknown, confirmed: false, revision: unconfirmed) {
            graph.put(device)
            changes.append(.device(device, previousStructureID: device.structureID))
        }
        if !changes.isEmpty { _ = try? record(changes, path: .state) }
    }

    /// Devices above which the start's unconfirmed marks are one revision without history (see
    /// ``prepareAfterLoad()``) rather than one logged change per device.
    static let unconfirmedReplayLimit = 1_000

    /// The revision the next ``record(_:path:)`` gives out; records built for it carry it.
    var upcomingRevision: UInt64 { graph.revision + 1 }

    /// The hub's epoch and newest committed revision.
    public func info() -> (epoch: String, revision: UInt64) { (graph.epoch, changeLog.published) }

    /// Figures describing the engine now, for the metrics page.
    public func statistics() -> (revision: UInt64, devices: Int, connectedDrivers: Int) {
        (changeLog.published, graph.devices.count, connectedDrivers.count)
    }
}

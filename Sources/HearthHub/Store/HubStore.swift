import HearthModel
import HearthProto

/// What the engine needs from storage. SQLite (``SQLiteStore``) is the default; the engine knows nothing
/// SQLite-specific, so another implementation (PostgreSQL for operators of many homes) can stand in.
///
/// Two kinds of writes, on purpose (`Docs/Hub.md`, "Two paths"): what a person typed (metadata) is
/// committed durably before anyone hears of it; what devices report (trait state) is saved behind
/// publication, coalesced, without waiting for the disk. Revisions are reserved durably in blocks so that
/// a hub killed at any moment never gives out a revision twice.
protocol HubStore: Sendable {
    /// Everything stored, or a fresh state (new epoch, revision 0) for an empty store.
    func load() async throws -> StoredHome
    /// Durably marks the store in use (a later ``load()`` without ``close(log:revision:)`` reports an unclean
    /// stop), reserves revisions through `reserveThrough`, and forgets the stored change log, which the engine
    /// holds in memory from now on.
    func open(reserveThrough: UInt64) async throws
    /// Commits metadata atomically and durably (on disk before it returns); completes even if the calling
    /// task is cancelled. A failure (``StoreError``) leaves the store as it was.
    func commit(_ batch: MetadataBatch) async throws
    /// Saves the newest trait states atomically; survives the process dying, need not survive power loss.
    func save(_ batch: StateBatch) async throws
    /// At a clean stop: the retained change log (for watchers resuming after the restart) and the last
    /// revision, durably; marks the stop clean.
    func close(log: [LogEntry], revision: UInt64) async throws
    /// Memory the store's engine holds now (caches, statements), for the metrics page; 0 if it cannot say.
    var memoryBytes: Int { get }
}

/// Why a store could not write: the engine tells callers which one, without knowing the store's kind.
struct StoreError: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        /// The disk (or the file system's quota) is full.
        case full
        /// Any other failure to write.
        case failed
    }

    var kind: Kind
    /// What the store reported, for logs and callers.
    var message: String

    var description: String { message }
}

/// The stored home, as loaded at start.
struct StoredHome: Sendable {
    var epoch: String
    /// The last revision of a clean stop; after an unclean one, what the store had when it died.
    var revision: UInt64
    /// Revisions given out can be at most this (reserved durably before use).
    var reserved: UInt64
    /// Whether the last run ended with ``HubStore/close(log:revision:)``.
    var clean: Bool
    var structures: [StructureRecord]
    var rooms: [RoomRecord]
    /// Devices as of their last metadata commit; ``traits`` may hold newer trait states.
    var devices: [DeviceRecord]
    /// Trait states saved after their device's last metadata commit (the newer revision wins).
    var traits: [TraitState]
    /// The change log of the last clean stop, oldest first: the change's bytes and the same decoded, and the
    /// previous structure of a moved device.
    var log: [StoredChange]
}

/// One change of the stored log.
struct StoredChange: Sendable {
    var bytes: [UInt8]
    var change: Hearth_V1_Change
    var previousStructureID: String?
}

/// One trait's state on one endpoint of a device: the unit the state path saves.
struct TraitState: Sendable, Hashable {
    struct Key: Hashable, Sendable {
        var deviceID: String
        var endpoint: UInt32
        var traitID: TraitID
    }

    var deviceID: String
    var endpoint: UInt32
    var trait: TraitRecord
    /// The state as its change-log entry encoded it (a `Change` carrying this trait), when it came from one:
    /// the saver stores these bytes instead of encoding the state a second time.
    var change: ArraySlice<UInt8>? = nil

    var key: Key { Key(deviceID: deviceID, endpoint: endpoint, traitID: trait.traitID) }
}

/// One durable commit: the newest value of every metadata object that changed.
struct MetadataBatch: Sendable {
    var structures: [StructureRecord] = []
    var rooms: [RoomRecord] = []
    var removedRooms: [String] = []
    var devices: [DeviceRecord] = []
    /// Removed with their saved trait states.
    var removedDevices: [String] = []
    /// Revisions reserved through this one once the batch is on disk.
    var reserveThrough: UInt64

    /// Objects written or removed.
    var count: Int { structures.count + rooms.count + removedRooms.count + devices.count + removedDevices.count }
}

/// Trait states to save, newest per trait.
struct StateBatch: Sendable {
    /// The newest state of each trait, as the engine gathered them: handed over whole, so that the engine
    /// does not copy thousands of states into an array on its own thread before every save.
    var states: [TraitState.Key: TraitState]

    var traits: Dictionary<TraitState.Key, TraitState>.Values { states.values }
}

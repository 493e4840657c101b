/// What the engine needs from storage. SQLite (``SQLiteStore``) is the default; the engine knows nothing
/// SQLite-specific, so another implementation (PostgreSQL for operators of many homes) can stand in.
protocol HubStore: Sendable {
    /// Everything stored, or a fresh state (new epoch, revision 0) for an empty store.
    func load() async throws -> StoredHome
    /// Commits one batch atomically and durably; it completes even if the calling task is cancelled.
    func commit(_ batch: StoreBatch) async throws
}

/// The stored home, as loaded at start.
struct StoredHome: Sendable {
    var epoch: String
    var revision: UInt64
    var structures: [StructureRecord]
    var rooms: [RoomRecord]
    var devices: [DeviceRecord]
    /// The retained change log, oldest first: (change bytes, previous structure of a moved device).
    var log: [(change: [UInt8], previousStructureID: String?)]
}

/// One group commit: the newest value of every object that changed, and the log entries.
struct StoreBatch: Sendable {
    /// The newest revision in the batch (stored as the hub's revision).
    var revision: UInt64
    var structures: [StructureRecord] = []
    var rooms: [RoomRecord] = []
    var removedRooms: [String] = []
    var devices: [DeviceRecord] = []
    var removedDevices: [String] = []
    var log: [LogEntry] = []
    /// Log entries at or below this revision may be deleted.
    var pruneLogThrough: UInt64 = 0

    var isEmpty: Bool {
        structures.isEmpty && rooms.isEmpty && removedRooms.isEmpty && devices.isEmpty && removedDevices.isEmpty
            && log.isEmpty
    }
}

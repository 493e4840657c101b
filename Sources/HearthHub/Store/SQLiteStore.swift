import Foundation
import GRDB
import GRDBSQLite
import HearthModel
import HearthProto
import SwiftProtobuf

/// SQLite's "copy the bytes before returning" destructor for bound text and blobs.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// The hub's storage in one SQLite file in WAL mode.
///
/// Metadata commits run with `synchronous = FULL`: the WAL is fsynced before ``commit(_:)`` returns. Trait
/// states are saved with `synchronous = NORMAL`: no fsync, so a save costs no disk wait; in WAL mode such a
/// transaction still survives the process being killed (the kernel has it), and only an OS crash or power
/// loss can take the last ones, which devices re-report anyway.
///
/// Objects are stored as their protobuf messages (the contract is versioned, so this is the stable form);
/// each trait's state has a row of its own, so a report rewrites that row and not the whole device. The
/// change log is written only at a clean stop, as the exact `Change` bytes watchers received.
final class SQLiteStore: HubStore {
    private let queue: DatabaseQueue

    /// Opens (creating if needed) `hub.sqlite` in `directory`.
    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        configuration.label = "hearth-hub"
        // A connection still closing (its last checkpoint) holds the file for a moment: wait for it, as a
        // hub restarted in place would, instead of failing with "database is locked".
        configuration.busyMode = .timeout(10)
        let path = directory.appendingPathComponent("hub.sqlite").path
        queue = try DatabaseQueue(path: path, configuration: configuration)
        _ = try queue.writeWithoutTransaction { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        }
        try Self.migrator.migrate(queue)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE structures (id TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                    CREATE TABLE rooms (id TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                    CREATE TABLE devices (id TEXT PRIMARY KEY NOT NULL, local_id TEXT NOT NULL, body BLOB NOT NULL);
                    CREATE TABLE change_log (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        revision INTEGER NOT NULL,
                        previous_structure_id TEXT,
                        change BLOB NOT NULL);
                    CREATE INDEX change_log_revision ON change_log(revision);
                    """)
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES ('epoch', ?), ('revision', '0')",
                arguments: [UUID().uuidString.lowercased()])
        }
        // Trait states apart from devices; revisions reserved in blocks; clean stops marked. A v1 store
        // committed everything before publishing it, so it counts as stopped cleanly.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE trait_state (
                        device_id TEXT NOT NULL, endpoint INTEGER NOT NULL, trait_id INTEGER NOT NULL,
                        body BLOB NOT NULL,
                        PRIMARY KEY (device_id, endpoint, trait_id)) WITHOUT ROWID;
                    INSERT INTO meta (key, value) SELECT 'reserved', value FROM meta WHERE key = 'revision';
                    INSERT INTO meta (key, value) VALUES ('clean', '1');
                    """)
        }
        // A trait state row may hold the `Change` its log entry carried (kind 1: encoded once, for the log
        // and the row) instead of the `TraitState` alone (kind 0).
        migrator.registerMigration("v3") { db in
            try db.execute(sql: "ALTER TABLE trait_state ADD COLUMN kind INTEGER NOT NULL DEFAULT 0")
        }
        return migrator
    }

    /// SQLite's own allocations in this process (its page caches and prepared statements).
    var memoryBytes: Int { Int(sqlite3_memory_used()) }

    func load() async throws -> StoredHome {
        // The rows are read in one pass; decoding them is most of a cold start (100,000 devices: two
        // thirds of it) and is spread over the cores below, outside the database's queue.
        let raw = try await queue.read { db in
            func meta(_ key: String) throws -> String? {
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
            }
            let revision = try meta("revision").flatMap(UInt64.init) ?? 0
            return RawHome(
                epoch: try meta("epoch") ?? "", revision: revision,
                reserved: try meta("reserved").flatMap(UInt64.init) ?? revision, clean: try meta("clean") == "1",
                structures: try Self.rows(db, "SELECT body FROM structures") { try Self.bytes($0, 0) },
                rooms: try Self.rows(db, "SELECT body FROM rooms") { try Self.bytes($0, 0) },
                devices: try Self.rows(db, "SELECT local_id, body FROM devices") {
                    RawDevice(localID: $0[0], body: try Self.bytes($0, 1))
                },
                traits: try Self.rows(db, "SELECT device_id, endpoint, body, kind FROM trait_state") {
                    RawTrait(deviceID: $0[0], endpoint: $0[1], body: try Self.bytes($0, 2), kind: TraitRowKind(rawValue: $0[3]))
                },
                log: try Self.rows(db, "SELECT change, previous_structure_id FROM change_log ORDER BY seq") {
                    (change: try Self.bytes($0, 0), previousStructureID: $0[1] as String?)
                })
        }
        // Read straight into records; rows the direct reader leaves go through swift-protobuf
        // (GraphRecords+Decoding.swift).
        let devices = try await Self.decodeInParallel(raw.devices) { row in
            try DeviceRecord.stored(row.body, localID: row.localID)
        }
        let traits = try await Self.decodeInParallel(raw.traits) { row in
            TraitState(
                deviceID: row.deviceID, endpoint: row.endpoint,
                trait: try TraitRecord.stored(row.body, isChange: row.kind == .change))
        }
        let log = try await Self.decodeInParallel(raw.log) { row in
            StoredChange(
                bytes: row.change, change: try Hearth_V1_Change(serializedBytes: row.change),
                previousStructureID: row.previousStructureID)
        }
        return StoredHome(
            epoch: raw.epoch, revision: raw.revision, reserved: raw.reserved, clean: raw.clean,
            structures: try raw.structures.map { StructureRecord(proto: try Hearth_V1_Structure(serializedBytes: $0)) },
            rooms: try raw.rooms.map { RoomRecord(proto: try Hearth_V1_Room(serializedBytes: $0)) },
            devices: devices, traits: traits, log: log)
    }

    /// The store's rows before decoding.
    private struct RawHome: Sendable {
        var epoch: String
        var revision: UInt64
        var reserved: UInt64
        var clean: Bool
        var structures: [[UInt8]]
        var rooms: [[UInt8]]
        var devices: [RawDevice]
        var traits: [RawTrait]
        var log: [(change: [UInt8], previousStructureID: String?)]
    }

    private struct RawDevice: Sendable {
        var localID: String
        var body: [UInt8]
    }

    private struct RawTrait: Sendable {
        var deviceID: String
        var endpoint: UInt32
        var body: [UInt8]
        var kind: TraitRowKind?
    }

    /// `transform` over `rows` in one chunk per core, in order; the first error wins.
    private static func decodeInParallel<Row: Sendable, Decoded: Sendable>(
        _ rows: [Row], _ transform: @escaping @Sendable (Row) throws -> Decoded
    ) async throws -> [Decoded] {
        let chunks = max(1, min(ProcessInfo.processInfo.activeProcessorCount, rows.count / 4096))
        guard chunks > 1 else { return try rows.map(transform) }
        let size = (rows.count + chunks - 1) / chunks
        return try await withThrowingTaskGroup(of: (Int, [Decoded]).self) { group in
            for chunk in 0..<chunks {
                let slice = rows[min(chunk * size, rows.count)..<min((chunk + 1) * size, rows.count)]
                group.addTask { (chunk, try slice.map(transform)) }
            }
            var decoded = [[Decoded]](repeating: [], count: chunks)
            for try await (chunk, part) in group { decoded[chunk] = part }
            return decoded.flatMap { $0 }
        }
    }

    func open(reserveThrough: UInt64) async throws {
        try await write(durable: true) { db in
            try Self.setMeta(db, ["clean": "0", "reserved": String(reserveThrough)])
            try db.execute(sql: "DELETE FROM change_log")
        }
    }

    func commit(_ batch: MetadataBatch) async throws {
        try await write(durable: true) { db in
            try Self.run(
                db, "INSERT OR REPLACE INTO structures (id, body) VALUES (?, ?)",
                try batch.structures.map { [$0.id, try $0.proto.serializedData()] })
            try Self.run(
                db, "INSERT OR REPLACE INTO rooms (id, body) VALUES (?, ?)",
                try batch.rooms.map { [$0.id, try $0.proto.serializedData()] })
            try Self.run(db, "DELETE FROM rooms WHERE id = ?", batch.removedRooms.map { [$0] })
            try Self.run(
                db, "INSERT OR REPLACE INTO devices (id, local_id, body) VALUES (?, ?, ?)",
                try batch.devices.map { [$0.id, $0.localID, try $0.proto.serializedData()] })
            try Self.run(db, "DELETE FROM devices WHERE id = ?", batch.removedDevices.map { [$0] })
            try Self.run(db, "DELETE FROM trait_state WHERE device_id = ?", batch.removedDevices.map { [$0] })
            // A commit after close() (a call finishing during shutdown) makes the stop unclean again.
            try Self.setMeta(db, ["reserved": String(batch.reserveThrough), "clean": "0"])
        }
    }

    func save(_ batch: StateBatch) async throws {
        guard !batch.states.isEmpty else { return }
        try await write(durable: false) { db in
            let statement = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO trait_state (device_id, endpoint, trait_id, body, kind) VALUES (?, ?, ?, ?, ?)")
            try Self.insertStates(batch.traits, with: statement, in: db)
        }
    }

    /// The state saver's rows, bound through SQLite's C API: GRDB's `StatementArguments` boxed the five
    /// values of every row and the `Change` bytes were copied into a `Data` first, a fifth of the saver at
    /// 20,000 states/s. SQLite copies bound text and blobs (`SQLITE_TRANSIENT`) before the call returns.
    private static func insertStates(
        _ states: some Sequence<TraitState>, with statement: Statement, in db: Database
    ) throws {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        for state in states {
            sqlite3_reset(handle)
            var code = state.deviceID.withCString { sqlite3_bind_text(handle, 1, $0, -1, transient) }
            if code == SQLITE_OK { code = sqlite3_bind_int64(handle, 2, Int64(state.endpoint)) }
            if code == SQLITE_OK { code = sqlite3_bind_int64(handle, 3, Int64(state.trait.traitID.rawValue)) }
            let kind: TraitRowKind
            if let change = state.change {
                kind = .change
                if code == SQLITE_OK { code = bindBlob(change, at: 4, of: handle) }
            } else {
                kind = .traitState
                let body: [UInt8] = try state.trait.proto.serializedBytes()
                if code == SQLITE_OK { code = bindBlob(body[...], at: 4, of: handle) }
            }
            if code == SQLITE_OK { code = sqlite3_bind_int64(handle, 5, kind.rawValue) }
            if code == SQLITE_OK { code = sqlite3_step(handle) }
            guard code == SQLITE_DONE else {
                let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
        }
    }

    private static func bindBlob(_ bytes: ArraySlice<UInt8>, at index: Int32, of handle: OpaquePointer) -> Int32 {
        bytes.withUnsafeBytes { raw in
            // A zero-length blob needs a non-null pointer, or SQLite stores NULL (the column is NOT NULL).
            sqlite3_bind_blob(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), transient)
        }
    }

    func close(log: [LogEntry], revision: UInt64) async throws {
        try await write(durable: true) { db in
            try db.execute(sql: "DELETE FROM change_log")
            try Self.run(
                db, "INSERT INTO change_log (revision, previous_structure_id, change) VALUES (?, ?, ?)",
                log.map { [Int64($0.revision), $0.route.previousStructureID, Data($0.change)] })
            try Self.setMeta(db, ["revision": String(revision), "reserved": String(revision), "clean": "1"])
        }
    }

    /// One transaction through GRDB's callback API, which no task owns: a write serves every waiter, so the
    /// cancellation of whichever task asked (a hub shutting down, a call ending) must not abandon it.
    /// `durable` picks the transaction's `synchronous` level (per connection, so set before it begins).
    private func write(durable: Bool, _ body: @escaping @Sendable (Database) throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.asyncWriteWithoutTransaction { db in
                continuation.resume(
                    with: Result {
                        try db.execute(sql: durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
                        try db.inTransaction {
                            try body(db)
                            return .commit
                        }
                    }.mapError(Self.storeError))
            }
        }
    }

    /// SQLite's answer as the engine understands it: a full disk, or another failure.
    private static func storeError(_ error: any Error) -> StoreError {
        guard let error = error as? DatabaseError else { return StoreError(kind: .failed, message: "\(error)") }
        let kind: StoreError.Kind = error.resultCode == .SQLITE_FULL ? .full : .failed
        return StoreError(kind: kind, message: "SQLite error \(error.resultCode.rawValue): \(error.message ?? "\(error)")")
    }

    /// What a `trait_state` row's body holds.
    private enum TraitRowKind: Int64, Sendable {
        /// A `TraitState` (rows of schema v2, and states that came from a whole-device change).
        case traitState = 0
        /// The `Change` the state's log entry carried.
        case change = 1
    }

    private static func run(_ db: Database, _ sql: String, _ rows: [StatementArguments]) throws {
        guard !rows.isEmpty else { return }
        let statement = try db.cachedStatement(sql: sql)
        for arguments in rows { try statement.execute(arguments: arguments) }
    }

    private static func setMeta(_ db: Database, _ values: [String: String]) throws {
        try run(
            db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", values.map { [$0.key, $0.value] })
    }

    /// A blob column of the cursor's current row, copied once (no `Data` in between).
    private static func bytes(_ row: Row, _ index: Int) throws -> [UInt8] {
        try row.withUnsafeData(atIndex: index) { data in data.map { [UInt8]($0) } ?? [] }
    }

    /// Every row of `sql` through `transform`, read with a cursor: GRDB's `fetchAll` copied each row with its
    /// column names first, a tenth of a 100k-device cold start.
    private static func rows<T>(_ db: Database, _ sql: String, _ transform: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        let cursor = try Row.fetchCursor(db, sql: sql)
        while let row = try cursor.next() { result.append(try transform(row)) }
        return result
    }
}

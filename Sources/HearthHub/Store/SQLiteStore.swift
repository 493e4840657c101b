import Foundation
import GRDB
import HearthProto
import SwiftProtobuf

/// The hub's storage in one SQLite file (WAL, `synchronous = FULL`): a batch is on disk before
/// ``commit(_:)`` returns, so nothing acknowledged or published is lost when the process dies.
///
/// Objects are stored as their protobuf messages (the contract is versioned, so this is the stable form);
/// the change log keeps the exact `Change` bytes watchers received, for resuming after a restart.
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
        return migrator
    }

    func load() async throws -> StoredHome {
        try await queue.read { db in
            let epoch = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'epoch'") ?? ""
            let revision = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'revision'")
                .flatMap(UInt64.init) ?? 0
            let structures = try Row.fetchAll(db, sql: "SELECT body FROM structures").map { row in
                StructureRecord(proto: try Hearth_V1_Structure(serializedBytes: Self.bytes(row[0])))
            }
            let rooms = try Row.fetchAll(db, sql: "SELECT body FROM rooms").map { row in
                RoomRecord(proto: try Hearth_V1_Room(serializedBytes: Self.bytes(row[0])))
            }
            let devices = try Row.fetchAll(db, sql: "SELECT local_id, body FROM devices").map { row in
                DeviceRecord(
                    proto: try Hearth_V1_Device(serializedBytes: Self.bytes(row[1])), localID: row[0])
            }
            let log = try Row.fetchAll(
                db, sql: "SELECT change, previous_structure_id FROM change_log ORDER BY seq"
            ).map { row in (change: Self.bytes(row[0]), previousStructureID: row[1] as String?) }
            return StoredHome(
                epoch: epoch, revision: revision, structures: structures, rooms: rooms, devices: devices, log: log)
        }
    }

    /// Commits through GRDB's callback API, which no task owns: a commit serves every waiter, so the
    /// cancellation of whichever task asked (a hub shutting down, a call ending) must not abandon it.
    func commit(_ batch: StoreBatch) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.asyncWrite({ db in try Self.write(batch, to: db) }, completion: { _, result in continuation.resume(with: result) })
        }
    }

    private static func write(_ batch: StoreBatch, to db: Database) throws {
        func run(_ sql: String, _ rows: [StatementArguments]) throws {
            guard !rows.isEmpty else { return }
            let statement = try db.cachedStatement(sql: sql)
            for arguments in rows { try statement.execute(arguments: arguments) }
        }
        try run(
            "INSERT OR REPLACE INTO structures (id, body) VALUES (?, ?)",
            try batch.structures.map { [$0.id, try Self.blob($0.proto)] })
        try run(
            "INSERT OR REPLACE INTO rooms (id, body) VALUES (?, ?)",
            try batch.rooms.map { [$0.id, try Self.blob($0.proto)] })
        try run("DELETE FROM rooms WHERE id = ?", batch.removedRooms.map { [$0] })
        try run(
            "INSERT OR REPLACE INTO devices (id, local_id, body) VALUES (?, ?, ?)",
            try batch.devices.map { [$0.id, $0.localID, try Self.blob($0.proto)] })
        try run("DELETE FROM devices WHERE id = ?", batch.removedDevices.map { [$0] })
        try run(
            "INSERT INTO change_log (revision, previous_structure_id, change) VALUES (?, ?, ?)",
            batch.log.map { [Int64($0.revision), $0.route.previousStructureID, Data($0.change)] })
        if batch.pruneLogThrough > 0 {
            try db.execute(
                sql: "DELETE FROM change_log WHERE revision <= ?", arguments: [Int64(batch.pruneLogThrough)])
        }
        try db.execute(
            sql: "UPDATE meta SET value = ? WHERE key = 'revision'", arguments: [String(batch.revision)])
    }

    private static func blob(_ message: some SwiftProtobuf.Message) throws -> Data {
        try message.serializedData()
    }

    private static func bytes(_ value: DatabaseValue) -> [UInt8] {
        if let data = Data.fromDatabaseValue(value) { return [UInt8](data) }
        return []
    }
}

import Synchronization

/// The devices of the snapshots being sent, each encoded once.
///
/// When several watchers join at once (the `Home`s of an app starting, phones and a dashboard reconnecting
/// after the hub restarted), each used to encode every device of the home for itself: ten watchers joining a
/// 100,000-device home cost the hub ten times the CPU of one. Now the first snapshot to reach a device stores
/// its encoded `Device` message here and the others copy it.
///
/// An entry is used only while the graph's record still equals the one it was encoded from. The records are
/// compared whole: for a record that did not change that is a few pointer comparisons, since the graph and
/// the entry share its storage; a device that changed meanwhile is encoded again.
///
/// Devices are stored only while two or more snapshots are being sent, and the cache is emptied when the last
/// one ends: a watcher that reads its snapshot slowly keeps what is stored until it has it all. At most
/// `byteLimit` bytes are counted (encoded bytes and ``entryOverhead`` per device); devices beyond are
/// encoded per watcher, as before.
///
/// It also keeps the devices' ids in the order snapshots send them, sorted once per set of devices.
final class SnapshotCache: Sendable {
    private struct Entry {
        let record: DeviceRecord
        let bytes: [UInt8]
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var snapshots = 0
        /// Blocks of devices being encoded now, by their first id, with the snapshots waiting for them.
        var encoding: [String: [CheckedContinuation<Bool, Never>]] = [:]
    }

    private let state = Mutex(State())
    private let sorted = Mutex<(version: UInt64, ids: [String])?>(nil)
    /// The most encoded bytes held (plus ``entryOverhead`` per device).
    let byteLimit: Int
    /// What an entry costs beyond its bytes, counted against ``byteLimit``: its slot in the table (key and
    /// record inline, at the table's load factor), the bytes' array header, malloc's rounding.
    static let entryOverhead = 256

    init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    /// A snapshot starts: what is stored is kept until every snapshot begun has ended.
    func begin() {
        state.withLock { $0.snapshots += 1 }
    }

    /// A snapshot ended (sent, failed or cancelled); the last one empties the cache.
    func end() {
        // The entries are freed when `released` goes, outside the lock.
        let released = state.withLock { s -> [String: Entry] in
            s.snapshots -= 1
            guard s.snapshots == 0 else { return [:] }
            s.bytes = 0
            defer { s.entries = [:] }
            return s.entries
        }
        _ = released
    }

    /// The graph's device ids in order: sorted by the first snapshot after a device was added or removed,
    /// off the engine, and kept for the others (sorting 100,000 ids took a seventh of the hub's CPU while ten
    /// watchers joined, each sorting them).
    func sortedDeviceIDs(_ graph: HomeGraph) -> [String] {
        if let kept = sorted.withLock({ $0 }), kept.version == graph.deviceSetVersion { return kept.ids }
        let ids = graph.devices.keys.sorted()
        sorted.withLock { kept in
            if kept.map({ $0.version <= graph.deviceSetVersion }) ?? true { kept = (graph.deviceSetVersion, ids) }
        }
        return ids
    }

    /// Claims the block of devices starting at `first` for encoding. Returns true at once when no other
    /// snapshot encodes it now: the caller encodes it and then calls ``finished(_:)``. Returns false when the
    /// caller need not: another snapshot was encoding the block (this waits until it has stored it), or
    /// nothing would be stored (fewer than two snapshots, or the cache full). Either way the caller then looks
    /// its devices up and encodes what is missing. Snapshots joining together reach the same blocks at about
    /// the same time, and each used to encode the block the others were encoding. (A waiter needs no
    /// cancellation: the encoding it waits for never suspends.)
    func claim(_ first: String) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let claimed = state.withLock { s -> Bool? in
                // Nothing would be stored for a waiter to copy: no claim.
                guard s.snapshots > 1, s.bytes < byteLimit else { return false }
                guard s.encoding[first] != nil else {
                    s.encoding[first] = []
                    return true
                }
                s.encoding[first]!.append(continuation)
                return nil
            }
            if let claimed { continuation.resume(returning: claimed) }
        }
    }

    /// The block claimed with `first` is encoded and stored: the snapshots waiting for it go on.
    func finished(_ first: String) {
        for waiter in state.withLock({ $0.encoding.removeValue(forKey: first) }) ?? [] {
            waiter.resume(returning: false)
        }
    }

    /// The encoded `Device` message of each of `records`, or nil where none is stored for the record as it is.
    ///
    /// Records are compared with `==`, which takes canonically equivalent strings and -0.0 and 0.0 as equal
    /// although they encode differently; two such records never share a revision, since every change of a
    /// device gives it the change's revision, so an entry is never used for a record it was not encoded from.
    func lookup(_ records: [DeviceRecord]) -> [[UInt8]?] {
        let found = state.withLock { s in records.map { s.entries[$0.id] } }
        // Compared outside the lock: a changed record is compared field by field.
        return zip(records, found).map { record, entry -> [UInt8]? in
            guard let entry, entry.record == record else { return nil }
            return entry.bytes
        }
    }

    /// Whether a snapshot may share anything now: another is being sent, or one stored devices. A snapshot
    /// sent alone skips the cache: storing what nobody reads cost a lone 100,000-device snapshot a tenth more.
    var isSharing: Bool {
        state.withLock { $0.snapshots > 1 || !$0.entries.isEmpty }
    }

    /// Stores freshly encoded devices, while the byte limit allows; none unless another snapshot is being sent.
    func store(_ encoded: [(record: DeviceRecord, bytes: [UInt8])]) {
        guard !encoded.isEmpty else { return }
        state.withLock { s in
            guard s.snapshots > 1 else { return }
            for (record, bytes) in encoded {
                let cost = bytes.count + Self.entryOverhead
                guard s.bytes + cost <= byteLimit else { return }
                if let old = s.entries.updateValue(Entry(record: record, bytes: bytes), forKey: record.id) {
                    s.bytes -= old.bytes.count + Self.entryOverhead
                }
                s.bytes += cost
            }
        }
    }

    /// Snapshots waiting for the block starting at `first`.
    func waiters(for first: String) -> Int {
        state.withLock { $0.encoding[first]?.count ?? 0 }
    }

    /// Devices stored, and the bytes counted against the limit.
    var usage: (devices: Int, bytes: Int) {
        state.withLock { ($0.entries.count, $0.bytes) }
    }
}

import Synchronization

/// The devices of the snapshots being sent, each encoded once.
///
/// When several watchers join at once (the `Home`s of an app starting, phones and a dashboard reconnecting
/// after the hub restarted), each used to encode every device of the home for itself: ten watchers joining a
/// 100,000-device home cost the hub ten times the CPU of one. Now the first snapshot to reach a device stores
/// its encoded `Device` message here and the others copy it.
///
/// Devices are stored by block (``WatchStream/snapshotBlock`` devices, keyed by the block's first id, their
/// encoded messages in one buffer), so a snapshot finds a block's devices with one lookup: stored device by
/// device, the lookups (hashing every id again, for every snapshot) and the stores were a third of the hub's
/// CPU while ten watchers joined a 100,000-device home.
///
/// A device is copied only while the graph's record still equals the one it was encoded from, at the same
/// place in the block. The records are compared whole: for a record that did not change that is a few
/// pointer comparisons, since the graph and the block share its storage; a device that changed meanwhile is
/// encoded again, and the block is stored anew.
///
/// A block that holds every device a graph gives a watcher is marked with both (``Origin``: the graph's
/// ``HomeGraph/devicesStamp``, which changes with every change to any device, and what the watcher sees,
/// ``WatchFilter/Visibility``): a snapshot of a graph with the same stamp, for a watcher who sees the same,
/// sends the block as it is, with no device looked up or compared. Watchers joining a quiet home together
/// take graphs with the same stamp; when a device changes while they join, the first snapshot of the newer
/// graph that finds a block unchanged marks it for its graph (never back for an older one). In a home that
/// changes every few milliseconds the stamps differ and each snapshot compares, as before. Blocks are
/// stored under their first id, with what the watcher sees appended unless it sees everything.
///
/// With no `linger`, devices are stored only while two or more snapshots are being sent, and the cache is
/// emptied when the last one ends: a watcher that reads its snapshot slowly keeps what is stored until it has
/// it all. With a `linger` (the hub's is ``HubEngine/Configuration/snapshotCacheLinger``), every snapshot
/// stores, even one sent alone, and what is stored is kept for `linger` after the last snapshot ended: the
/// clients of a home rarely join in the same millisecond (after a hub restart or a Wi-Fi drop they come back
/// over a few seconds of their backoff), and a snapshot that finds its blocks stored copies them instead of
/// encoding them, so the others do not queue behind its encoding. At most `byteLimit` bytes are counted
/// (encoded bytes and ``entryOverhead`` per device); a block that does not fit is stored as far as it fits,
/// and the devices beyond are encoded per watcher, as before.
///
/// It also keeps the devices' ids in the order snapshots send them, sorted once per set of devices.
final class SnapshotCache: Sendable {
    /// The devices of one block as a snapshot encoded them, in its order.
    struct Block: Sendable {
        var records: [DeviceRecord] = []
        /// The graph and visibility the block holds every device of, when it is known to: a snapshot of the
        /// same sends the block as it is, with no device looked up or compared
        /// (``WatchStream/encodeStored(_:origin:revision:cache:)``). Nil for a block stored only in part, or
        /// stored with none.
        var origin: Origin?
        /// Tells this block from any other stored under the same key (given by ``SnapshotCache/store(_:at:)``).
        var serial: UInt64 = 0
        /// The encoded `Device` messages, one after another.
        var bytes: [UInt8] = []
        /// Where each device's message ends in `bytes`.
        var ends: [Int] = []

        /// The `index`th device's message, if it was encoded from `record`.
        func device(at index: Int, matching record: DeviceRecord) -> ArraySlice<UInt8>? {
            guard index < records.count, records[index] == record else { return nil }
            return device(at: index)
        }

        func device(at index: Int) -> ArraySlice<UInt8> {
            bytes[end(ofFirst: index)..<ends[index]]
        }

        /// Where the first `count` devices' messages end in `bytes`.
        private func end(ofFirst count: Int) -> Int { count == 0 ? 0 : ends[count - 1] }

        mutating func append(_ record: DeviceRecord, device: ArraySlice<UInt8>) {
            records.append(record)
            bytes.append(contentsOf: device)
            ends.append(bytes.count)
        }

        /// Encodes `record` at the end; returns its message.
        mutating func appendEncoded(_ record: DeviceRecord) -> ArraySlice<UInt8> {
            let start = bytes.count
            records.append(record)
            record.appendDevice(to: &bytes)
            ends.append(bytes.count)
            return bytes[start...]
        }

        /// What it counts against the limit.
        var cost: Int { cost(ofFirst: records.count) }

        /// What its first `count` devices count against the limit.
        func cost(ofFirst count: Int) -> Int {
            end(ofFirst: count) + count * SnapshotCache.entryOverhead
        }

        /// The first `count` devices.
        func prefix(_ count: Int) -> Block {
            guard count < records.count else { return self }
            return Block(
                records: Array(records.prefix(count)), origin: nil, bytes: Array(bytes.prefix(end(ofFirst: count))),
                ends: Array(ends.prefix(count)))
        }
    }

    /// What a block's devices are: those of the graph with ``HomeGraph/devicesStamp`` that a watcher of
    /// `visibility` sees. (Compared stamp first: a different stamp answers without comparing the sets.)
    struct Origin: Sendable, Equatable {
        var devicesStamp: UInt64
        var visibility: WatchFilter.Visibility
    }

    private struct State {
        var blocks: [String: Block] = [:]
        /// The last ``Block/serial`` given.
        var serials: UInt64 = 0
        var devices = 0
        var bytes = 0
        var snapshots = 0
        /// The graph's device set (``HomeGraph/deviceSetVersion``) the newest snapshot began with.
        var deviceSet: UInt64 = 0
        /// Counts the times the last snapshot ended: an emptying scheduled then is skipped if another began
        /// and ended since.
        var quietSpells: UInt64 = 0
        /// Blocks of devices being encoded now, by their first id, with the snapshots waiting for them.
        var encoding: [String: [CheckedContinuation<Bool, Never>]] = [:]

        /// Whether a block encoded now is stored: another snapshot may copy it now, or within the linger.
        /// Whether what is stored outlives the snapshots (``SnapshotCache/linger`` is not zero).
        let lingers: Bool

        /// Whether a block encoded now is stored: another snapshot may copy it now, or within the linger.
        var stores: Bool { snapshots > 1 || (lingers && snapshots > 0) }

        /// Empties the cache; returns the blocks, to be freed outside the lock.
        mutating func empty() -> [String: Block] {
            bytes = 0
            devices = 0
            defer { blocks = [:] }
            return blocks
        }
    }

    private let state: Mutex<State>
    private let sorted = Mutex<(version: UInt64, ids: [String])?>(nil)
    /// The most encoded bytes held (plus ``entryOverhead`` per device).
    let byteLimit: Int
    /// What a device costs beyond its bytes, counted against ``byteLimit``: its record and offset in the
    /// block, malloc's rounding.
    static let entryOverhead = 128
    /// How long what is stored is kept after the last snapshot ended (zero: emptied at once).
    let linger: Duration

    init(byteLimit: Int, linger: Duration = .zero) {
        self.byteLimit = byteLimit
        self.linger = linger
        state = Mutex(State(lingers: linger > .zero))
    }

    /// A snapshot of the graph's device set `deviceSet` starts: what is stored is kept until every snapshot
    /// begun has ended (and the linger has passed). A newer device set empties the cache first: a device
    /// added or removed moves the blocks' boundaries after it, so what was stored under the old first ids
    /// would only hold memory (and, as snapshots keep coming within the linger, the byte limit) until the
    /// cache is next emptied.
    func begin(deviceSet: UInt64 = 0) {
        let released = state.withLock { s -> [String: Block] in
            s.snapshots += 1
            guard deviceSet > s.deviceSet else { return [:] }
            s.deviceSet = deviceSet
            return s.empty()
        }
        _ = released
    }

    /// A snapshot ended (sent, failed or cancelled). After the last one the cache is emptied: at once, or
    /// once `linger` has passed with no snapshot begun and ended meanwhile.
    func end() {
        // The blocks are freed when `released` goes, outside the lock.
        let (released, spell) = state.withLock { s -> ([String: Block], UInt64?) in
            s.snapshots -= 1
            guard s.snapshots == 0 else { return ([:], nil) }
            guard s.lingers else { return (s.empty(), nil) }
            s.quietSpells += 1
            return ([:], s.quietSpells)
        }
        _ = released
        guard let spell else { return }
        Task {
            try? await Task.sleep(for: linger)
            let expired = state.withLock { s -> [String: Block] in
                guard s.snapshots == 0, s.quietSpells == spell else { return [:] }
                return s.empty()
            }
            _ = expired
        }
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
    /// nothing would be stored (fewer than two snapshots with no linger, or the cache full). Either way the
    /// caller then sends the block stored whole for its graph if there is one, or looks its devices up and
    /// encodes what is missing. Snapshots joining together reach the
    /// same blocks at about the same time, and each used to encode the block the others were encoding. (A
    /// waiter needs no cancellation: the encoding it waits for never suspends.)
    func claim(_ first: String) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let claimed = state.withLock { s -> Bool? in
                // Nothing would be stored for a waiter to copy: no claim. (With a linger a lone snapshot
                // claims too: one joining while it encodes a block waits for it rather than encoding it again.)
                guard s.stores, s.bytes < byteLimit else { return false }
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

    /// The block starting at `first`, as stored, if one is.
    func block(startingAt first: String) -> Block? {
        state.withLock { $0.blocks[first] }
    }

    /// The block starting at `first` if it holds every device of `origin`'s graph and visibility (compared
    /// outside the lock: a watcher's filter may hold thousands of ids).
    func block(startingAt first: String, origin: Origin) -> Block? {
        guard let block = block(startingAt: first), block.origin == origin else { return nil }
        return block
    }

    /// A snapshot found every device of `stored`, stored under `first`, as its graph holds them, and no others,
    /// through the same visibility: the block is now known to be `origin`'s, a newer graph's, and the
    /// snapshots of that graph send it as it is. (Ten watchers joining while a device changes take graphs
    /// of two stamps; the later ones would otherwise compare every device of every block.) Only forward: a
    /// snapshot of an older graph leaves the block to the newer one. Nothing when another block was stored
    /// under `first` meanwhile.
    func restamp(_ first: String, stored: Block, to origin: Origin) {
        guard origin.devicesStamp > stored.origin?.devicesStamp ?? 0 else { return }
        state.withLock { s in
            guard s.blocks[first]?.serial == stored.serial else { return }
            s.blocks[first]?.origin = origin
        }
    }

    /// The encoded `Device` message of each of `records` (a block stored under its first record's id, as
    /// ``WatchStream/encode(_:revision:cache:key:origin:)`` stores it by default), or nil where none is
    /// stored for the record as it is.
    ///
    /// Records are compared with `==`, which takes canonically equivalent strings and -0.0 and 0.0 as equal
    /// although they encode differently; two such records never share a revision, since every change of a
    /// device gives it the change's revision, so a device is never copied for a record it was not encoded from.
    func lookup(_ records: [DeviceRecord]) -> [[UInt8]?] {
        guard let first = records.first else { return [] }
        let stored = block(startingAt: first.id)
        return records.enumerated().map { index, record in stored?.device(at: index, matching: record).map(Array.init) }
    }

    /// Whether a snapshot may share anything now: another is being sent, devices are stored, or (with a
    /// linger) one may follow. Without a linger a snapshot sent alone skips the cache: storing what nobody
    /// reads cost a lone 100,000-device snapshot a tenth more.
    var isSharing: Bool {
        state.withLock { $0.stores || !$0.blocks.isEmpty }
    }

    /// Stores a block's devices as encoded now, in place of what was stored for it, as far as the byte limit
    /// allows; nothing unless another snapshot is being sent, or (with a linger) one is.
    func store(_ block: Block, at first: String) {
        guard !block.records.isEmpty else { return }
        let replaced = state.withLock { s -> Block? in
            guard s.stores else { return nil }
            let old = s.blocks.removeValue(forKey: first)
            if let old {
                s.bytes -= old.cost
                s.devices -= old.records.count
            }
            var fits = block.records.count
            while fits > 0, s.bytes + block.cost(ofFirst: fits) > byteLimit { fits -= 1 }
            guard fits > 0 else { return old }
            s.serials += 1
            var kept = block.prefix(fits)
            kept.serial = s.serials
            s.blocks[first] = kept
            s.bytes += kept.cost
            s.devices += fits
            return old
        }
        _ = replaced  // freed outside the lock
    }

    /// Snapshots waiting for the block starting at `first`.
    func waiters(for first: String) -> Int {
        state.withLock { $0.encoding[first]?.count ?? 0 }
    }

    /// Devices stored, and the bytes counted against the limit.
    var usage: (devices: Int, bytes: Int) {
        state.withLock { ($0.devices, $0.bytes) }
    }
}

import Synchronization

/// What one subscriber's rendering has delivered of devices whose change was still being applied.
///
/// A device's entry is updated in place (see ``HomeSnapshot``), so a rendering of snapshot n may read a
/// device that the update n + 1, not yet published, has changed. It delivers that value (never an older
/// one) and remembers it here; when update n + 1 comes with the device among its changes, the same version
/// is not delivered again.
struct DeviceRenderMemory {
    /// Devices delivered ahead of their update: the entry and the version delivered.
    private var early: [String: (entry: CachedDevice, version: UInt64)] = [:]

    /// Whether version `version` of entry `entry` (device `id`), last changed by the update with sequence
    /// `changedIn`, is to be delivered by a rendering of the snapshot with sequence `sequence`.
    mutating func shouldDeliver(_ id: String, _ entry: CachedDevice, version: UInt64, changedIn: UInt64, sequence: UInt64) -> Bool {
        if !early.isEmpty, let delivered = early.removeValue(forKey: id), delivered.entry === entry,
            delivered.version == version
        {
            return false
        }
        if changedIn > sequence { early[id] = (entry, version) }
        return true
    }

    /// Forgets device `id` (removed: its entry will not come again).
    mutating func forget(_ id: String) { if !early.isEmpty { early[id] = nil } }

    /// What a rendering does with one changed device.
    enum Found {
        /// Deliver this value.
        case deliver(HomeDevice)
        /// This version was delivered already.
        case delivered
        /// The snapshot no longer holds the device (it is forgotten here).
        case removed
    }

    /// Device `id` as a rendering of `snapshot` finds it: every rendering reads a changed device this way.
    mutating func find(_ id: String, in snapshot: HomeSnapshot, home: Home) -> Found {
        guard let entry = snapshot.devices[id] else {
            forget(id)
            return .removed
        }
        return deliver(id, entry, in: snapshot, home: home).map(Found.deliver) ?? .delivered
    }

    /// Every device of `snapshot`, for a first rendering: each is delivered, and those read ahead of their
    /// update are remembered.
    mutating func readAll(in snapshot: HomeSnapshot, home: Home, _ body: (String, HomeDevice) -> Void) {
        for (id, entry) in snapshot.devices {
            let read = entry.read(home: home)
            _ = shouldDeliver(id, entry, version: read.version, changedIn: read.sequence, sequence: snapshot.sequence)
            body(id, read.device)
        }
    }

    /// Entry `entry`'s value, unless this version was delivered already.
    private mutating func deliver(_ id: String, _ entry: CachedDevice, in snapshot: HomeSnapshot, home: Home) -> HomeDevice? {
        let read = entry.read(home: home)
        let fresh = shouldDeliver(id, entry, version: read.version, changedIn: read.sequence, sequence: snapshot.sequence)
        return fresh ? read.device : nil
    }

    /// How many deliveries it remembers (for tests: what a rendering keeps must not grow without bound).
    var remembered: Int { early.count }
}

/// The renderings of ``HomeDevice`` feeds: those of ``Query`` for any object, reading each device's entry
/// with its version so that none is delivered twice.
enum DeviceRenders {
    /// `devices().stream()`: every device, then each changed device. Not sorted: ordering each update's ids
    /// was 6 % of a client applying 100,000 changes/s, and a stream promises no order within an update.
    static func stream(_ home: Home) -> FeedRender<HomeDevice> {
        let memory = Mutex(DeviceRenderMemory())
        return { first, snapshot, delta in
            memory.withLock { memory in
                if first {
                    var out: [HomeDevice] = []
                    out.reserveCapacity(snapshot.devices.count)
                    memory.readAll(in: snapshot, home: home) { out.append($1) }
                    return .values(out)
                }
                return .values(delta.devices.compactMap { id in
                    guard case .deliver(let device) = memory.find(id, in: snapshot, home: home) else { return nil }
                    return device  // a removed device is not in a stream
                })
            }
        }
    }

    /// `devices().batched()`: the whole set, then the set again whenever a device in it is added, removed
    /// or changed; the set it last emitted is updated with only what changed.
    static func batched(_ home: Home) -> FeedRender<Set<HomeDevice>> {
        let last = Mutex<(set: Set<HomeDevice>, byID: [String: HomeDevice], memory: DeviceRenderMemory)?>(nil)
        return { first, snapshot, delta in
            last.withLock { last in
                guard !first, var (set, byID, memory) = last else {
                    var memory = DeviceRenderMemory()
                    var byID: [String: HomeDevice] = [:]
                    byID.reserveCapacity(snapshot.devices.count)
                    memory.readAll(in: snapshot, home: home) { byID[$0] = $1 }
                    var set = Set<HomeDevice>(minimumCapacity: Self.sparse(byID.count))
                    for device in byID.values { set.insert(device) }
                    last = (set, byID, memory)
                    return .values([set])
                }
                last = nil  // the set is uniquely held while it is updated
                var changed = false
                for id in delta.devices {
                    switch memory.find(id, in: snapshot, home: home) {
                    case .delivered:
                        continue
                    case .deliver(let new):
                        // Replaced, not removed and added: a dictionary's removal moves the entries after
                        // the hole back, hashing each of them.
                        if let old = byID.updateValue(new, forKey: id) {
                            set.remove(old)
                        } else {
                            // Only a new device can fill the set up. Reserving on every rendering copied a
                            // set the subscriber still held even when every change had been delivered already.
                            set.reserveCapacity(Self.sparse(set.count + 1))
                        }
                        set.insert(new)
                    case .removed:
                        if let old = byID.removeValue(forKey: id) { set.remove(old) }
                    }
                    changed = true
                }
                last = (set, byID, memory)
                return .values(changed ? [set] : [])
            }
        }
    }

    /// The capacity that keeps a `batched()` set under two fifths full. A changed device leaves the set and
    /// comes back (its new value is not equal to its old one), and removing from a hash table moves back
    /// each entry after the hole up to the next empty slot, hashing its id again: at the standard load (up
    /// to three quarters) those runs are long. The room costs 13 to 21 bytes a device per subscriber (8 bytes
    /// a bucket; the number of buckets is a power of two).
    static func sparse(_ count: Int) -> Int { 2 * count }

    /// `device(id:)`: the device now, then on each change; finishes when it is removed (at once if there is
    /// none).
    static func single(_ id: String, home: Home) -> FeedRender<HomeDevice> {
        let memory = Mutex(DeviceRenderMemory())
        return { first, snapshot, delta in
            guard first || delta.devices.contains(id) else { return .values([]) }
            switch memory.withLock({ $0.find(id, in: snapshot, home: home) }) {
            case .deliver(let device): return .values([device])
            case .delivered: return .values([])
            case .removed: return .finished
            }
        }
    }
}

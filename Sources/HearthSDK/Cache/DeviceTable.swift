import HashTreeCollections

/// A snapshot's device entries by id: a hash table shared by every snapshot that holds it, with an overlay of
/// the ids added or removed since the table was last rebuilt.
///
/// A `Dictionary` finds an entry with one probe, where a persistent hash tree visits a node per level (the
/// tree's lookups were 13.6 % of the `building` mix's client process, a `Dictionary`'s 7.3 %). But a published
/// snapshot's table is shared with the one being built, so adding or removing one device copied the whole
/// table (about 6 MB at 100,000 devices): a driver announcing devices in revisions of 200 made every client
/// copy a growing table hundreds of times. Here additions and removals go to the overlay, a persistent hash
/// tree (an update copies a path of it, not all of it); once it holds more than an eighth of the table (and
/// more than ``foldAt`` ids), it is folded into the table (copied first when another snapshot shares it,
/// which is then the one copy of the table in that many updates). Each id added therefore costs, amortised,
/// about nine entry copies and a path of the tree, however many devices the home has.
///
/// A lookup of a device in the table is one probe of it while no overlay id also names a table entry (the
/// overlay then only holds new devices, looked up when the table has no entry). Once a device was removed
/// (or replaced) it is a tree lookup and then the table's probe, and iterating looks each entry up in the
/// tree, until the next fold, which in a large home that changes little may be long: about as slow as the
/// tree alone was. A removed device's entry stays in the table until then too.
///
/// A snapshot being built (not yet shared) is written straight into the table (``entry(for:orInsert:)``).
struct DeviceTable: Sendable, Sequence {
    /// The overlay is folded once it holds more ids than this, or an eighth of the table if that is more.
    static let foldAt = 1024

    private var table: [String: CachedDevice] = [:]
    /// Ids added since the table was built (with their entry), or removed from it (nil).
    private var overlay: TreeDictionary<String, CachedDevice?> = [:]
    /// How many overlay ids also have an entry in the table (removed, or removed and added again): while
    /// none does, a table entry is the answer without a look at the overlay.
    private var shadowing = 0
    /// How many devices the snapshot holds.
    private(set) var count = 0

    init() {}

    /// How many ids the overlay holds (for tests: zero right after a fold).
    var overlayCount: Int { overlay.count }

    /// Whether the bookkeeping is what the contents say (for tests; it walks the overlay): `shadowing`
    /// counts exactly the overlay ids the table also holds, and `count` the devices held.
    var bookkeepingHolds: Bool {
        var shadowed = 0
        var held = table.count
        for (id, entry) in overlay {
            let inTable = table[id] != nil
            if inTable { shadowed += 1 }
            switch (inTable, entry != nil) {
            case (true, false): held -= 1
            case (false, true): held += 1
            default: break
            }
        }
        return shadowed == shadowing && held == count
    }

    /// The entry for `id`, if the snapshot holds that device.
    subscript(id: String) -> CachedDevice? {
        if shadowing == 0 {
            if let entry = table[id] { return entry }
            return overlay.isEmpty ? nil : overlay[id] ?? nil
        }
        if let changed = overlay[id] { return changed }
        return table[id]
    }

    /// Adds `entry` for `id`, replacing the entry it had if any.
    mutating func insert(_ entry: CachedDevice, for id: String) {
        if self[id] == nil { count += 1 }
        if overlay.updateValue(entry, forKey: id) == nil, table[id] != nil { shadowing += 1 }
        foldIfLarge()
    }

    /// Removes `id`'s entry; returns it, or nil when the snapshot did not hold the device.
    @discardableResult
    mutating func removeValue(forKey id: String) -> CachedDevice? {
        guard let entry = self[id] else { return nil }
        if table[id] == nil {
            overlay.removeValue(forKey: id)  // added since the table was built: forgotten outright
        } else if overlay.updateValue(nil, forKey: id) == nil {
            shadowing += 1
        }
        count -= 1
        foldIfLarge()
        return entry
    }

    /// `id`'s entry, inserted from `make` (called only then) if the snapshot has none: with one probe of the
    /// table when the overlay is empty, as it is for a snapshot being built, whose table is not shared and is
    /// written in place.
    mutating func entry(for id: String, orInsert make: () -> CachedDevice) -> (entry: CachedDevice, isNew: Bool) {
        guard overlay.isEmpty else {
            if let entry = self[id] { return (entry, false) }
            let entry = make()
            insert(entry, for: id)
            return (entry, true)
        }
        var isNew = false
        // Through `inout`, the defaulted subscript inserts what it made (a plain read would not).
        func stored(_ entry: inout CachedDevice) -> CachedDevice { entry }
        let entry = stored(&table[id, default: { isNew = true; return make() }()])
        if isNew { count += 1 }
        return (entry, isNew)
    }

    /// Makes room in the table for `capacity` devices, so that filling it does not grow it step by step.
    mutating func reserveCapacity(_ capacity: Int) {
        table.reserveCapacity(capacity)
    }

    /// The ids, in no particular order.
    var keys: LazyMapSequence<DeviceTable, String> { lazy.map(\.key) }
    /// The entries, in no particular order.
    var values: LazyMapSequence<DeviceTable, CachedDevice> { lazy.map(\.value) }

    var underestimatedCount: Int { count }

    /// Folds the overlay into the table once it is large enough that its upkeep would cost more than a new
    /// table. The table is written in place: copied first only when another snapshot shares it.
    private mutating func foldIfLarge() {
        guard overlay.count > Swift.max(Self.foldAt, table.count / 8) else { return }
        for (id, entry) in overlay {
            if let entry { table[id] = entry } else { table.removeValue(forKey: id) }
        }
        overlay = [:]
        shadowing = 0
    }

    func makeIterator() -> Iterator {
        Iterator(table: table.makeIterator(), overlay: overlay, shadowing: shadowing > 0)
    }

    /// The table's entries that the overlay leaves alone, then the overlay's additions.
    struct Iterator: IteratorProtocol {
        private var table: Dictionary<String, CachedDevice>.Iterator
        private let overlay: TreeDictionary<String, CachedDevice?>
        /// Whether a table entry may be removed or replaced in the overlay (each is then looked up there).
        private let shadowing: Bool
        private var added: TreeDictionary<String, CachedDevice?>.Iterator?

        fileprivate init(
            table: Dictionary<String, CachedDevice>.Iterator, overlay: TreeDictionary<String, CachedDevice?>,
            shadowing: Bool
        ) {
            self.table = table
            self.overlay = overlay
            self.shadowing = shadowing
        }

        mutating func next() -> (key: String, value: CachedDevice)? {
            if added == nil {
                while let element = table.next() {
                    if !shadowing || overlay[element.key] == nil { return element }
                }
                added = overlay.makeIterator()
            }
            while let (id, entry) = added?.next() {
                if let entry { return (id, entry) }
            }
            return nil
        }
    }
}

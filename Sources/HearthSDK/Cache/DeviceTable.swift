/// A snapshot's device entries by id: a hash table shared by every snapshot that holds it, with a small overlay
/// of the ids added or removed since the table was last rebuilt.
///
/// A `Dictionary` alone finds an entry with one probe, where a persistent hash tree visits a node per level
/// (the tree's lookups were 13.6 % of the `building` mix's client process, a `Dictionary`'s 7.3 %). But a
/// published snapshot's table is shared with the one being built, so adding or removing a single device copied
/// the whole table (about 6 MB at 100,000 devices): a driver announcing devices in revisions of 200 made
/// every client copy a growing table hundreds of times. Here additions and removals go to the overlay, which
/// alone is copied; once it passes an eighth of the table (at least ``foldAt`` ids), it is folded into a new
/// table. Each id added thus costs a few entry copies on average, and a lookup one probe of the table, plus
/// one of the overlay while the overlay is not empty.
///
/// A snapshot being built (not yet shared) is written straight into the table (``entry(for:orInsert:)``).
struct DeviceTable: Sendable, Sequence {
    /// The overlay is folded once it holds more ids than this, or an eighth of the table if that is more.
    static let foldAt = 1024

    private var table: [String: CachedDevice] = [:]
    /// Ids added since the table was built (with their entry), or removed from it (nil).
    private var overlay: [String: CachedDevice?] = [:]
    /// How many devices the snapshot holds.
    private(set) var count = 0

    init() {}

    /// The entry for `id`, if the snapshot holds that device.
    subscript(id: String) -> CachedDevice? {
        if !overlay.isEmpty, let changed = overlay[id] { return changed }
        return table[id]
    }

    /// Adds `entry` for `id`, replacing the entry it had if any.
    mutating func insert(_ entry: CachedDevice, for id: String) {
        if self[id] == nil { count += 1 }
        overlay[id] = .some(entry)
        foldIfLarge()
    }

    /// Removes `id`'s entry; returns it, or nil when the snapshot did not hold the device.
    @discardableResult
    mutating func removeValue(forKey id: String) -> CachedDevice? {
        guard let entry = self[id] else { return nil }
        if table[id] == nil {
            overlay.removeValue(forKey: id)  // added since the table was built: forgotten outright
        } else {
            overlay[id] = .some(nil)
        }
        count -= 1
        foldIfLarge()
        return entry
    }

    /// `id`'s entry, inserted from `make` if the snapshot has none, with one probe of the table: for a snapshot
    /// being built, whose table is not shared and is written in place.
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

    /// The ids, in no particular order.
    var keys: LazyMapSequence<DeviceTable, String> { lazy.map(\.key) }
    /// The entries, in no particular order.
    var values: LazyMapSequence<DeviceTable, CachedDevice> { lazy.map(\.value) }

    /// A new table with the overlay folded in, once the overlay is large enough that its copies (one per
    /// update that adds or removes a device) would cost more than the table's.
    private mutating func foldIfLarge() {
        guard overlay.count > Swift.max(Self.foldAt, table.count / 8) else { return }
        var folded = table
        for (id, entry) in overlay {
            if let entry { folded[id] = entry } else { folded.removeValue(forKey: id) }
        }
        table = folded
        overlay = [:]
    }

    func makeIterator() -> Iterator {
        Iterator(table: table.makeIterator(), overlay: overlay)
    }

    /// The table's entries that the overlay leaves alone, then the overlay's additions.
    struct Iterator: IteratorProtocol {
        fileprivate var table: Dictionary<String, CachedDevice>.Iterator
        fileprivate let overlay: [String: CachedDevice?]
        private var added: Dictionary<String, CachedDevice?>.Iterator?

        fileprivate init(table: Dictionary<String, CachedDevice>.Iterator, overlay: [String: CachedDevice?]) {
            self.table = table
            self.overlay = overlay
        }

        mutating func next() -> (key: String, value: CachedDevice)? {
            if added == nil {
                while let element = table.next() {
                    if overlay.isEmpty || overlay[element.key] == nil { return element }
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

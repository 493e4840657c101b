import HearthModel
import HearthProto
@testable import HearthSDK
import HearthSimulator
import SwiftProtobuf
import Testing

/// The SDK cache's device table (a shared hash table with an overlay of added and removed ids) answers as a
/// plain dictionary would, through overlays and folds, and a copy taken before a change keeps what it held.
@Suite("SDK cache: the device table")
struct SDKDeviceTableTests {
    static func entry(_ id: String) -> CachedDevice {
        CachedDevice(CompactDevice(Hearth_V1_Device.with { $0.id = id; $0.driverID = "lights"; $0.name = id }))
    }

    /// Checks `table` against `model`: count, every lookup (held ids and some never held), and iteration.
    static func expectSame(_ table: DeviceTable, _ model: [String: CachedDevice], probes: Range<Int>) {
        #expect(table.count == model.count)
        for n in probes {
            let id = "d\(n)"
            #expect(table[id] === model[id], "lookup of \(id)")
        }
        var seen: [String: CachedDevice] = [:]
        for (id, entry) in table {
            #expect(seen.updateValue(entry, forKey: id) == nil, "\(id) iterated twice")
        }
        #expect(seen.count == model.count)
        #expect(seen.allSatisfy { model[$0.key] === $0.value })
        #expect(Set(table.keys) == Set(model.keys))
        #expect(table.values.count { _ in true } == model.count)
    }

    @Test("random additions, replacements and removals across many snapshots match a dictionary")
    func matchesDictionary() {
        var generator = SeededGenerator(seed: 19)
        var table = DeviceTable()
        var model: [String: CachedDevice] = [:]
        // Built in place first, as a first sync does; `make` runs only for a new id.
        var made = 0
        for n in 0..<10_000 {
            let id = "d\(n)"
            let (entry, isNew) = table.entry(for: id) { made += 1; return Self.entry(id) }
            #expect(isNew)
            model[id] = entry
        }
        let again = table.entry(for: "d7") { made += 1; return Self.entry("d7") }
        #expect(!again.isNew && again.entry === model["d7"] && made == 10_000)
        Self.expectSame(table, model, probes: 0..<10_100)

        // Then published snapshots, each changed by an update that adds, replaces or removes a few devices:
        // enough updates that the overlay passes an eighth of the table (1,250 ids) and is folded several
        // times. Every twentieth older snapshot, and the last, is checked after all of them were made.
        var history: [(DeviceTable, [String: CachedDevice])] = [(table, model)]
        var folds = 0
        for _ in 0..<600 {
            var next = table
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                let id = "d\(Int.random(in: 0..<20_000, using: &generator))"
                let before = next.overlayCount
                switch Int.random(in: 0..<3, using: &generator) {
                case 0, 1:
                    let made = Self.entry(id)
                    next.insert(made, for: id)
                    model[id] = made
                default:
                    #expect(next.removeValue(forKey: id) === model.removeValue(forKey: id))
                }
                // Only a fold empties an overlay that held the threshold (a removal takes one id off it).
                if before >= DeviceTable.foldAt, next.overlayCount == 0 { folds += 1 }
            }
            #expect(next.bookkeepingHolds)
            table = next
            history.append((table, model))
        }
        #expect(folds >= 3, "the overlay was folded into the table")
        for (index, (old, oldModel)) in history.enumerated() where index % 20 == 0 || index == history.count - 1 {
            Self.expectSame(old, oldModel, probes: 0..<20_100)
        }
    }

    @Test("a device removed and added again, and one added then removed within the overlay")
    func removeThenAdd() {
        var table = DeviceTable()
        for id in ["a", "b"] { _ = table.entry(for: id) { Self.entry(id) } }
        let shared = table
        let newer = Self.entry("a")
        #expect(table.removeValue(forKey: "a") != nil)
        #expect(table["a"] == nil && table.count == 1)
        #expect(table.removeValue(forKey: "a") == nil, "removed twice")
        #expect(Array(table.keys) == ["b"], "a removed table entry is not iterated")
        table.insert(newer, for: "a")
        table.insert(Self.entry("c"), for: "c")
        #expect(table.removeValue(forKey: "c") != nil)
        #expect(table["a"] === newer && table["c"] == nil && table.count == 2)
        #expect(Set(table.keys) == ["a", "b"] && table.values.count { _ in true } == 2)
        #expect(shared["a"] !== newer && shared.count == 2, "the copy taken before is unchanged")
        // While the overlay is not empty, building in place still finds what it holds, re-adds a removed
        // table entry, and calls `make` only for an id it lacks.
        var made = 0
        let found = table.entry(for: "a") { made += 1; return Self.entry("x") }
        #expect(!found.isNew && found.entry === newer && made == 0)
        #expect(table.removeValue(forKey: "b") != nil)
        let back = table.entry(for: "b") { made += 1; return Self.entry("b") }
        #expect(back.isNew && table["b"] === back.entry && table.count == 2 && made == 1)
        #expect(shared["b"] !== back.entry && shared.count == 2)
        #expect(table.bookkeepingHolds)
    }

    @Test("a table entry replaced, removed, added again and removed again; an added id found while building")
    func shadowedPaths() {
        var table = DeviceTable()
        for id in ["a", "b"] { _ = table.entry(for: id) { Self.entry(id) } }
        let replacement = Self.entry("a")
        table.insert(replacement, for: "a")  // a table entry replaced, with nothing removed before
        #expect(table["a"] === replacement && table.count == 2 && table.bookkeepingHolds)
        #expect(table.values.filter { $0 === replacement }.count == 1 && Array(table.keys).count == 2)
        #expect(table.removeValue(forKey: "a") === replacement)
        table.insert(Self.entry("a"), for: "a")
        #expect(table.removeValue(forKey: "a") != nil)  // removed, added again, removed again
        #expect(table["a"] == nil && table.count == 1 && Array(table.keys) == ["b"] && table.bookkeepingHolds)
        let c = Self.entry("c")
        table.insert(c, for: "c")
        var made = 0
        let found = table.entry(for: "c") { made += 1; return Self.entry("c") }
        #expect(!found.isNew && found.entry === c && made == 0 && table.bookkeepingHolds)
    }

    @Test("building in place on a copy that shares its table leaves the older copy as it was")
    func buildOnSharedCopy() {
        var table = DeviceTable()
        _ = table.entry(for: "a") { Self.entry("a") }
        let older = table
        let added = table.entry(for: "b") { Self.entry("b") }
        #expect(added.isNew && table.count == 2 && table["b"] === added.entry)
        #expect(older.count == 1 && older["b"] == nil && Array(older.keys) == ["a"])
    }
}

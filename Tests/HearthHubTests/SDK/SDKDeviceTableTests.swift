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
        // Built in place first, as a first sync does.
        for n in 0..<3000 {
            let id = "d\(n)"
            let made = Self.entry(id)
            let (entry, isNew) = table.entry(for: id) { made }
            #expect(isNew && entry === made)
            model[id] = made
        }
        let again = table.entry(for: "d7") { Self.entry("d7") }
        #expect(!again.isNew && again.entry === model["d7"])
        Self.expectSame(table, model, probes: 0..<3100)

        // Then published snapshots, each changed by an update that adds, replaces or removes a few devices:
        // enough updates that the overlay is folded several times. Every older snapshot is kept and checked.
        var history: [(DeviceTable, [String: CachedDevice])] = [(table, model)]
        for _ in 0..<400 {
            var next = table
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                let id = "d\(Int.random(in: 0..<6000, using: &generator))"
                switch Int.random(in: 0..<3, using: &generator) {
                case 0, 1:
                    let made = Self.entry(id)
                    next.insert(made, for: id)
                    model[id] = made
                default:
                    #expect(next.removeValue(forKey: id) === model.removeValue(forKey: id))
                }
            }
            table = next
            history.append((table, model))
        }
        for (old, oldModel) in history.suffix(5) + history.prefix(3) {
            Self.expectSame(old, oldModel, probes: 0..<6100)
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
        table.insert(newer, for: "a")
        table.insert(Self.entry("c"), for: "c")
        #expect(table.removeValue(forKey: "c") != nil)
        #expect(table["a"] === newer && table["c"] == nil && table.count == 2)
        #expect(Set(table.keys) == ["a", "b"])
        #expect(shared["a"] !== newer && shared.count == 2, "the copy taken before is unchanged")
        // While the overlay is not empty a lookup, and building in place, still find what it holds.
        let found = table.entry(for: "a") { Self.entry("x") }
        #expect(!found.isNew && found.entry === newer)
        let added = table.entry(for: "d") { Self.entry("d") }
        #expect(added.isNew && table["d"] === added.entry && table.count == 3)
    }
}

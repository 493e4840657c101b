@testable import HearthHub
import HearthModel
import HearthProto
import Testing

/// The change log's two bounds: entries and the memory they hold. Eviction keeps whole revisions.
@Suite("Change log bounds")
struct ChangeLogTests {
    static func entry(_ revision: UInt64, name: String = "Lamp") throws -> LogEntry {
        var change = Hearth_V1_Change()
        change.revision = revision
        change.structure.id = "home"
        change.structure.name = name
        return try LogEntry(change, previousStructureID: nil, device: nil)
    }

    @Test("past its byte capacity the log drops its oldest whole revisions, and resumes from them re-list")
    func byteCapacity() throws {
        let one = try Self.entry(1).retainedBytes
        // Room for five entries of this size.
        let log = ChangeLog(capacity: 1000, byteCapacity: one * 5, published: 0, history: [])
        for revision in UInt64(1)...4 { log.publish([try Self.entry(revision)], through: revision) }
        #expect(log.entries.count == 4)
        // Revision 5 has three entries: the log holds 7 entries' worth, so revisions 1 and 2 go.
        log.publish([try Self.entry(5), try Self.entry(5), try Self.entry(5)], through: 5)
        #expect(log.entries.map(\.revision) == [3, 4, 5, 5, 5])
        #expect(log.oldestResumable == 2)
        guard case .evicted = log.read(after: 1, limit: 100, readAllAbove: 1000) else {
            Issue.record("a cursor before the retained revisions must re-list")
            return
        }
        guard case .entries(let entries, let through, _) = log.read(after: 2, limit: 100, readAllAbove: 1000) else {
            Issue.record("a cursor at the oldest resumable revision must resume")
            return
        }
        #expect(entries.count == 5 && through == 5)
    }

    @Test("one revision larger than the whole budget leaves the log empty but resumable from that revision")
    func hugeRevision() throws {
        let one = try Self.entry(1).retainedBytes
        let log = ChangeLog(capacity: 1000, byteCapacity: one * 2, published: 0, history: [])
        log.publish([try Self.entry(1)], through: 1)
        log.publish((0..<4).map { _ in try! Self.entry(2) }, through: 2)
        #expect(log.entries.isEmpty)
        #expect(log.oldestResumable == 2)
        guard case .entries(let entries, _, _) = log.read(after: 2, limit: 10, readAllAbove: 100) else {
            Issue.record("the newest revision must stay resumable")
            return
        }
        #expect(entries.isEmpty)
    }

    @Test("stored history is cut to both bounds at start")
    func history() throws {
        let history = try (UInt64(1)...10).map { try Self.entry($0) }
        let byBytes = ChangeLog(capacity: 100, byteCapacity: history[0].retainedBytes * 3, published: 10, history: history)
        #expect(byBytes.entries.map(\.revision) == [8, 9, 10])
        #expect(byBytes.oldestResumable == 7)
        let byCount = ChangeLog(capacity: 4, published: 10, history: history)
        #expect(byCount.entries.map(\.revision) == [7, 8, 9, 10])
    }
}

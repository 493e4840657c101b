import HearthHub
import HearthProto
import Synchronization

/// One in-process watcher of the whole home (from revision 0, admin rights, no filter): it counts what it
/// receives, and the benchmark reads the counts while it runs.
///
/// `HubEngine.watch` calls `send` for one response at a time, so the counters are only ever written by
/// one task; they are atomics so that the benchmark can read them meanwhile.
final class Subscriber: Sendable {
    /// How a subscriber looks at each response.
    enum Work: String, Sendable, CaseIterable {
        /// Walks the top-level fields and counts the changes (see ``WatchResponseScan/init(scanning:)``).
        case scan
        /// Decodes the whole response with SwiftProtobuf.
        case decode
    }

    static let admin = UserAccess(user: "bench", role: .admin, structures: nil)

    let work: Work
    private let responsesCount = Atomic<Int>(0)
    private let bytesCount = Atomic<Int>(0)
    /// Changes received after the synced mark (the snapshot's changes are not counted).
    private let liveChangesCount = Atomic<Int>(0)
    private let snapshotChangesCount = Atomic<Int>(0)
    private let lastRevision = Atomic<UInt64>(0)
    private let isSynced = Atomic<Bool>(false)
    private let wasRelisted = Atomic<Bool>(false)

    init(work: Work) {
        self.work = work
    }

    var responses: Int { responsesCount.load(ordering: .relaxed) }
    var bytes: Int { bytesCount.load(ordering: .relaxed) }
    var liveChanges: Int { liveChangesCount.load(ordering: .relaxed) }
    var snapshotChanges: Int { snapshotChangesCount.load(ordering: .relaxed) }
    /// The revision of the newest response processed (0 until the snapshot is whole).
    var revision: UInt64 { lastRevision.load(ordering: .acquiring) }
    var synced: Bool { isSynced.load(ordering: .acquiring) }
    var relisted: Bool { wasRelisted.load(ordering: .relaxed) }

    /// Watches until cancelled (or until the engine answers with a relist, which the counters record).
    func run(_ engine: HubEngine) async throws {
        try await engine.watch(Hearth_V1_WatchRequest(), as: Self.admin) { bytes in
            try self.receive(bytes)
        }
    }

    private func receive(_ bytes: [UInt8]) throws {
        let scan =
            switch work {
            case .scan: try WatchResponseScan(scanning: bytes)
            case .decode: try WatchResponseScan(decoding: bytes)
            }
        responsesCount.add(1, ordering: .relaxed)
        bytesCount.add(bytes.count, ordering: .relaxed)
        if scan.relist { wasRelisted.store(true, ordering: .relaxed) }
        if isSynced.load(ordering: .relaxed) {
            liveChangesCount.add(scan.changes, ordering: .relaxed)
        } else {
            snapshotChangesCount.add(scan.changes, ordering: .relaxed)
        }
        if scan.revision != 0 { lastRevision.store(scan.revision, ordering: .releasing) }
        if scan.synced { isSynced.store(true, ordering: .releasing) }
    }
}

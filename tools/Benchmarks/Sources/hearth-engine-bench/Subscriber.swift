import HearthHub
import HearthProto
import Synchronization

/// One in-process watcher of the whole home (from revision 0, admin rights, no filter): it counts what it
/// receives, and the benchmark reads the counts while it runs. Told to re-list, it does what a client does:
/// watches again from 0 (a new snapshot), and counts the re-list.
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
    /// Changes received after a synced mark (snapshot changes are counted apart).
    private let liveChangesCount = Atomic<Int>(0)
    private let snapshotChangesCount = Atomic<Int>(0)
    private let lastRevision = Atomic<UInt64>(0)
    private let hasSynced = Atomic<Bool>(false)
    private let relistCount = Atomic<Int>(0)
    private let failure = Mutex<String?>(nil)

    init(work: Work) {
        self.work = work
    }

    var responses: Int { responsesCount.load(ordering: .relaxed) }
    var bytes: Int { bytesCount.load(ordering: .relaxed) }
    var liveChanges: Int { liveChangesCount.load(ordering: .relaxed) }
    var snapshotChanges: Int { snapshotChangesCount.load(ordering: .relaxed) }
    /// The revision the subscriber's copy of the home is at: that of the newest response processed after a
    /// whole snapshot (0 before the first).
    var revision: UInt64 { lastRevision.load(ordering: .acquiring) }
    /// Whether a first snapshot has been received whole.
    var synced: Bool { hasSynced.load(ordering: .acquiring) }
    /// Times the engine answered with a re-list (the subscriber had fallen out of the retained change log).
    var relists: Int { relistCount.load(ordering: .relaxed) }

    /// Why the subscriber stopped before being cancelled (a malformed response), if it did.
    var failed: String? { failure.withLock { $0 } }

    /// Watches until cancelled, watching again from 0 after each re-list. An error is kept in ``failed``
    /// (the benchmark checks it while it waits) and ends the subscriber.
    func run(_ engine: HubEngine) async {
        do {
            while !Task.isCancelled {
                let stream = StreamState()
                try await engine.watch(Hearth_V1_WatchRequest(), as: Self.admin) { bytes in
                    try self.receive(bytes, stream)
                }
                // `watch` returns by itself only after sending a re-list.
            }
        } catch where !Task.isCancelled {
            failure.withLock { $0 = "\(error)" }
        } catch {}
    }

    /// Throws the first failure of `subscribers`.
    static func check(_ subscribers: [Subscriber]) throws {
        if let failed = subscribers.lazy.compactMap(\.failed).first { throw BenchError("a subscriber failed: \(failed)") }
    }

    /// Whether the current stream's snapshot is complete, and how many responses it has had.
    private final class StreamState: Sendable {
        let synced = Atomic<Bool>(false)
        let responses = Atomic<Int>(0)
    }

    /// Responses per stream whose scan is checked against a full decode, so that a scanning subscriber
    /// cannot miscount unnoticed.
    static let checkedResponses = 16

    private func receive(_ bytes: [UInt8], _ stream: StreamState) throws {
        let scan =
            switch work {
            case .scan: try WatchResponseScan(scanning: bytes)
            case .decode: try WatchResponseScan(decoding: bytes)
            }
        if work == .scan, stream.responses.add(1, ordering: .relaxed).newValue <= Self.checkedResponses {
            let decoded = try WatchResponseScan(decoding: bytes)
            guard decoded == scan else {
                throw BenchError("scanning a response gave \(scan), decoding it \(decoded)")
            }
        }
        responsesCount.add(1, ordering: .relaxed)
        bytesCount.add(bytes.count, ordering: .relaxed)
        if scan.relist {
            relistCount.add(1, ordering: .relaxed)
            return
        }
        if stream.synced.load(ordering: .relaxed) {
            liveChangesCount.add(scan.changes, ordering: .relaxed)
        } else {
            snapshotChangesCount.add(scan.changes, ordering: .relaxed)
        }
        if scan.synced {
            stream.synced.store(true, ordering: .relaxed)
            hasSynced.store(true, ordering: .releasing)
        }
        if stream.synced.load(ordering: .relaxed), scan.revision != 0 {
            lastRevision.store(scan.revision, ordering: .releasing)
        }
    }
}

import HearthHub
import Prometheus

/// One throughput measurement on an engine that already holds the lights: attach the subscribers and wait
/// for their snapshots, report for a warm-up and then for the measured window, then wait until everything
/// reported is published and every subscriber has it.
struct ThroughputRun {
    var subscribers: Int
    var work: Subscriber.Work
    var warmup: Duration
    var window: Duration
    var traitsPerReport: Int
    /// How long the subscribers' snapshots and the drain may take before the run fails.
    var limit: Duration = .seconds(1800)

    func run(_ engine: HubEngine, lights: inout Lights) async throws -> ThroughputResult {
        let watchers = (0..<subscribers).map { _ in Subscriber(work: work) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for watcher in watchers { group.addTask { try await watcher.run(engine) } }
            defer { group.cancelAll() }

            let attached = ContinuousClock.now
            try await waitUntil("\(subscribers) subscribers' snapshots", limit: limit) {
                try Self.check(watchers)
                return watchers.allSatisfy(\.synced)
            }
            let snapshotTime = ContinuousClock.now - attached
            // Nothing is pending now (a snapshot waits for everything before it to be published), so every
            // revision from here on is one report.
            let startRevision = await engine.info().revision
            let warmupReports = try await drive(engine, lights: &lights, for: warmup)

            let before = Sample(engine: engine, await engine.info().revision, watchers)
            let started = ContinuousClock.now
            let reports = try await drive(engine, lights: &lights, for: window)
            let elapsed = (ContinuousClock.now - started).seconds
            let after = Sample(engine: engine, await engine.info().revision, watchers)

            let drainStarted = ContinuousClock.now
            let target = startRevision + UInt64(warmupReports + reports)
            try await waitUntil("publishing revision \(target)", limit: limit) {
                await engine.info().revision >= target
            }
            try await waitUntil("subscribers reaching revision \(target)", limit: limit) {
                try Self.check(watchers)
                return watchers.allSatisfy { $0.revision >= target }
            }
            let drainTime = ContinuousClock.now - drainStarted
            let final = await engine.info().revision
            guard final == target else {
                throw BenchError("revision \(final) after \(warmupReports + reports) reports from \(startRevision): some report changed nothing")
            }

            let delivered = zip(before.live, after.live).map { Double($1 - $0) / elapsed }
            let bytes = zip(before.bytes, after.bytes).map { Double($1 - $0) / elapsed }
            let changes = after.changes - before.changes
            let commits = after.commits - before.commits
            return ThroughputResult(
                devices: lights.count, subscribers: subscribers, subscriberWork: work.rawValue,
                traitsPerReport: traitsPerReport, seconds: elapsed, snapshotSeconds: subscribers == 0 ? 0 : snapshotTime.seconds,
                reports: reports, revisionsApplied: after.revision - before.revision, changesApplied: changes,
                appliedPerSecond: Double(changes) / elapsed, reportedPerSecond: Double(reports * traitsPerReport) / elapsed,
                commits: commits, changesPerCommit: commits == 0 ? 0 : Double(changes) / Double(commits),
                deliveredPerSubscriberPerSecond: delivered.isEmpty ? 0 : delivered.reduce(0, +) / Double(delivered.count),
                deliveredSlowestPerSecond: delivered.min() ?? 0,
                bytesPerSubscriberPerSecond: bytes.isEmpty ? 0 : bytes.reduce(0, +) / Double(bytes.count),
                coalescedReads: after.coalesced - before.coalesced, drainSeconds: drainTime.seconds,
                rssBytes: after.rss)
        }
    }

    /// Reports as fast as the engine takes them until `duration` has passed; returns how many reports.
    private func drive(_ engine: HubEngine, lights: inout Lights, for duration: Duration) async throws -> Int {
        let deadline = ContinuousClock.now + duration
        var count = 0
        repeat {
            for _ in 0..<16 {
                let rejected = try await engine.report(driver: Lights.driver, lights.nextReport(traits: traitsPerReport))
                if let first = rejected.first { throw BenchError("the engine refused a report: \(first)") }
                count += 1
            }
        } while ContinuousClock.now < deadline
        return count
    }

    private static func check(_ watchers: [Subscriber]) throws {
        if watchers.contains(where: \.relisted) {
            throw BenchError("a subscriber fell out of the retained change log and was told to re-list")
        }
    }

    /// Counters read at the start and at the end of the window.
    private struct Sample {
        var revision: UInt64
        var live: [Int]
        var bytes: [Int]
        var changes: Int
        var commits: Int
        var coalesced: Int
        var rss: Int

        init(engine: HubEngine, _ revision: UInt64, _ watchers: [Subscriber]) {
            self.revision = revision
            live = watchers.map(\.liveChanges)
            bytes = watchers.map(\.bytes)
            let page = engine.metrics.registry.emitToString()
            changes = Self.value(of: "hearth_changes_total", in: page)
            commits = Self.value(of: "hearth_commit_changes_count", in: page)
            coalesced = Self.value(of: "hearth_watch_coalesced_total", in: page)
            rss = ProcessProbe.memory().rss
        }

        /// The value on the line `name value` of a Prometheus page (0 when absent).
        static func value(of name: String, in page: String) -> Int {
            for line in page.split(separator: "\n") where line.hasPrefix(name + " ") {
                return Int(Double(line.dropFirst(name.count + 1)) ?? 0)
            }
            return 0
        }
    }
}

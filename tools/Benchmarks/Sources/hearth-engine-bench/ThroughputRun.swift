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
            for watcher in watchers { group.addTask { await watcher.run(engine) } }
            defer { group.cancelAll() }

            let attached = ContinuousClock.now
            try await waitUntil("\(subscribers) subscribers' snapshots", limit: limit) {
                try Subscriber.check(watchers)
                return watchers.allSatisfy(\.synced)
            }
            let snapshotTime = ContinuousClock.now - attached
            // Nothing is pending now (a snapshot waits for everything before it to be published), so every
            // revision from here on is one report.
            let startRevision = await engine.info().revision
            let warmupReports = try await drive(engine, lights: &lights, for: warmup)

            // The window: the driver reports for `window`; then the engine finishes committing and publishing
            // what it took, and the subscribers finish receiving it. Rates are over the time until then, so
            // that a commit still running when the driver stops is not left out (at 100k devices one group
            // commit can take seconds).
            let before = Sample(engine: engine, await engine.info().revision, watchers)
            let started = ContinuousClock.now
            let reports = try await drive(engine, lights: &lights, for: window)
            let reported = ContinuousClock.now - started
            let rss = ProcessProbe.memory().rss

            let target = startRevision + UInt64(warmupReports + reports)
            try await waitUntil("publishing revision \(target)", limit: limit) {
                await engine.info().revision >= target
            }
            let published = Sample(engine: engine, target, watchers)
            let publishTime = ContinuousClock.now - started
            try await waitUntil("subscribers reaching revision \(target)", limit: limit) {
                try Subscriber.check(watchers)
                return watchers.allSatisfy { $0.revision >= target }
            }
            let delivered = Sample(engine: engine, target, watchers)
            let deliverTime = ContinuousClock.now - started
            let final = await engine.info().revision
            guard final == target else {
                throw BenchError("revision \(final) after \(warmupReports + reports) reports from \(startRevision): some report changed nothing")
            }

            let perSubscriber = zip(before.live, delivered.live).map { Double($1 - $0) / deliverTime.seconds }
            let bytes = zip(before.bytes, delivered.bytes).map { Double($1 - $0) / deliverTime.seconds }
            let changes = published.changes - before.changes
            let commits = published.commits - before.commits
            return ThroughputResult(
                devices: lights.count, subscribers: subscribers, subscriberWork: work.rawValue,
                traitsPerReport: traitsPerReport, seconds: reported.seconds,
                snapshotSeconds: subscribers == 0 ? 0 : snapshotTime.seconds, reports: reports,
                reportedPerSecond: Double(reports * traitsPerReport) / reported.seconds,
                publishSeconds: publishTime.seconds, revisionsApplied: target - before.revision, changesApplied: changes,
                appliedPerSecond: Double(changes) / publishTime.seconds,
                commits: commits, changesPerCommit: commits == 0 ? 0 : Double(changes) / Double(commits),
                deliverSeconds: subscribers == 0 ? 0 : deliverTime.seconds,
                deliveredPerSubscriberPerSecond: perSubscriber.isEmpty ? 0 : perSubscriber.reduce(0, +) / Double(perSubscriber.count),
                deliveredSlowestPerSecond: perSubscriber.min() ?? 0,
                bytesPerSubscriberPerSecond: bytes.isEmpty ? 0 : bytes.reduce(0, +) / Double(bytes.count),
                coalescedReads: delivered.coalesced - before.coalesced, relists: delivered.relists - before.relists,
                drainSeconds: (deliverTime - reported).seconds, rssBytes: rss)
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

    /// Counters read at the start and at the end of the window.
    private struct Sample {
        var revision: UInt64
        var live: [Int]
        var bytes: [Int]
        var relists: Int
        var changes: Int
        var commits: Int
        var coalesced: Int

        init(engine: HubEngine, _ revision: UInt64, _ watchers: [Subscriber]) {
            self.revision = revision
            live = watchers.map(\.liveChanges)
            bytes = watchers.map(\.bytes)
            relists = watchers.map(\.relists).reduce(0, +)
            let page = engine.metrics.registry.emitToString()
            changes = Self.value(of: "hearth_changes_total", in: page)
            commits = Self.value(of: "hearth_commit_changes_count", in: page)
            coalesced = Self.value(of: "hearth_watch_coalesced_total", in: page)
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

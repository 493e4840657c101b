public import Prometheus
import HearthWire

/// The hub's Prometheus metrics, in a registry of their own.
///
/// Each ``Hub`` has its own registry, so several hubs in one process (as in the tests) never mix their
/// figures. Counters and histograms are updated where things happen; the gauges that describe a state
/// (devices, drivers, connections) are read when ``Hub/metricsText()`` renders the page, so they cost
/// nothing between scrapes. Names follow Prometheus conventions (`_total`, `_seconds`); `Docs/Hub.md`
/// lists them.
public final class HubMetrics: Sendable {
    /// The registry the page is rendered from; the executable also bootstraps swift-metrics onto it.
    public let registry: PrometheusCollectorRegistry

    /// Changes published to watchers (rate = changes/s).
    let changes: Counter
    /// Group commits to SQLite and how long each took.
    let commitDuration: DurationHistogram
    /// Objects written per durable metadata commit.
    let commitSize: ValueHistogram
    /// Open watch streams.
    let watchStreams: Gauge
    /// How many revisions a watcher was behind when it read the log: the fan-out queue depth.
    let watchBacklog: ValueHistogram
    /// Watch reads that had to coalesce a backlog (the watcher was too slow).
    let watchCoalesced: Counter
    /// Connected driver sessions.
    let driverSessions: Gauge
    // Read at render time.
    let revision: Gauge
    let devices: Gauge
    let connections: Gauge
    let runningCalls: Gauge
    /// The wire's live sessions, held bytes and budget refusals (``WireServer/Statistics``).
    let wireSessions: Gauge
    let wirePartialBytes: Gauge
    let wireQueuedBytes: Gauge
    let wireRefusals: [(label: String, gauge: Gauge)]
    /// ``recordCall(kind:code:duration:)``'s instruments by kind (`command`, `write`): the OK counter and
    /// the duration histogram, made once.
    private let calls: [String: (ok: Counter, duration: DurationHistogram)]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        changes = registry.makeCounter(descriptor: Self.name("changes", "total", "Changes published to watchers."))
        commitDuration = registry.makeDurationHistogram(
            descriptor: Self.name("commit_duration", "seconds", "Time to write one durable metadata commit to SQLite."),
            buckets: Self.latencyBuckets)
        commitSize = registry.makeValueHistogram(
            descriptor: Self.name("commit", "changes", "Objects written per durable metadata commit."), buckets: Self.sizeBuckets)
        watchStreams = registry.makeGauge(descriptor: Self.name("watch", "streams", "Open watch streams."))
        watchBacklog = registry.makeValueHistogram(
            descriptor: Self.name(
                "watch_backlog", "revisions",
                "Revisions a watcher was behind at each read of the change log (fan-out queue depth)."),
            buckets: Self.sizeBuckets)
        watchCoalesced = registry.makeCounter(
            descriptor: Self.name("watch_coalesced", "total", "Reads that coalesced a slow watcher's backlog."))
        driverSessions = registry.makeGauge(descriptor: Self.name("driver", "sessions", "Connected driver sessions."))
        revision = registry.makeGauge(descriptor: Self.name("revision", "", "Newest committed revision."))
        devices = registry.makeGauge(descriptor: Self.name("devices", "", "Devices in the home graph."))
        connections = registry.makeGauge(descriptor: Self.name("connections", "", "Open HTTP/2 connections."))
        runningCalls = registry.makeGauge(descriptor: Self.name("running", "calls", "Calls being handled now."))
        wireSessions = registry.makeGauge(
            descriptor: Self.name("wire_sessions", "", "HTTP/2 sessions alive (0 once every connection has closed)."))
        wirePartialBytes = registry.makeGauge(
            descriptor: Self.name("wire_partial_message", "bytes", "Bytes of incomplete incoming messages held."))
        wireQueuedBytes = registry.makeGauge(
            descriptor: Self.name("wire_queued_outbound", "bytes", "Bytes queued for peers, not yet sent."))
        calls = Dictionary(
            uniqueKeysWithValues: ["command", "write"].map { kind in
                (kind, (Self.callCounter(registry, kind: kind, code: "OK"), Self.callDuration(registry, kind: kind)))
            })
        // Totals kept by the wire; exported as gauges because they are read, not counted, here.
        wireRefusals = [
            "partial_message_budget", "unauthenticated", "first_message_timeout", "enhance_your_calm",
            "queued_outbound_budget",
        ].map {
            reason in
            (
                reason,
                registry.makeGauge(
                    descriptor: Self.name(
                        "wire_refusals", "", "Calls refused or connections closed by a budget, by reason (running total)."),
                    labels: [("reason", reason)])
            )
        }
    }

    /// Sets the wire's gauges; called when the page is rendered.
    func refresh(wire: WireServer.Statistics) {
        wireSessions.set(Double(wire.sessionsAlive))
        wirePartialBytes.set(Double(wire.partialMessageBytes))
        wireQueuedBytes.set(Double(wire.queuedOutboundBytes))
        let totals = [
            wire.partialBudgetRefusals, wire.unauthenticatedRefusals, wire.firstMessageTimeouts,
            wire.enhanceYourCalmClosures, wire.outboundBudgetResets,
        ]
        for (entry, total) in zip(wireRefusals, totals) { entry.gauge.set(Double(total)) }
    }

    func watchOpened() { watchStreams.increment() }
    func watchClosed() { watchStreams.decrement() }

    func recordCommit(duration: Duration, changes: Int) {
        commitDuration.record(duration)
        commitSize.record(Double(changes))
    }

    func recordPublished(changes count: Int) { changes.increment(by: Int64(count)) }

    /// Records how far behind a watcher was when it read the change log, and whether it had to coalesce.
    func recordWatchRead(backlog: UInt64, coalesced: Bool) {
        watchBacklog.record(Double(backlog))
        if coalesced { watchCoalesced.increment() }
    }

    /// Sets the gauges that describe the hub's state; called when the page is rendered.
    func refresh(revision: UInt64, devices: Int, drivers: Int, connections: Int, runningCalls: Int) {
        self.revision.set(Double(revision))
        self.devices.set(Double(devices))
        driverSessions.set(Double(drivers))
        self.connections.set(Double(connections))
        self.runningCalls.set(Double(runningCalls))
    }

    /// The page in Prometheus text format 0.0.4.
    func render() -> String { registry.emitToString() }

    /// Counts a command or attribute write by its outcome and records its round trip through the driver.
    /// - Parameters:
    ///   - kind: `command` or `write`.
    ///   - code: the gRPC status name of the outcome (`ok`, `deadline_exceeded`, …).
    func recordCall(kind: String, code: String, duration: Duration) {
        // Instruments made once: the registry's lookup by name and labels cost about 6 µs a command, on the
        // way to the caller's answer. A failure's counter (one per code, and rare) is still looked up.
        let made = calls[kind]
        let counter = code == "OK" ? made?.ok : nil
        (counter ?? Self.callCounter(registry, kind: kind, code: code)).increment()
        (made?.duration ?? Self.callDuration(registry, kind: kind)).record(duration)
    }

    private static func callCounter(_ registry: PrometheusCollectorRegistry, kind: String, code: String) -> Counter {
        registry.makeCounter(
            descriptor: name("commands", "total", "Commands and writes by outcome."), labels: [("kind", kind), ("code", code)])
    }

    private static func callDuration(_ registry: PrometheusCollectorRegistry, kind: String) -> DurationHistogram {
        registry.makeDurationHistogram(
            descriptor: name("command_duration", "seconds", "Round trip of commands and writes through the hub and the driver."),
            labels: [("kind", kind)], buckets: latencyBuckets)
    }

    /// Counts a snapshot's devices: those encoded for it, and those copied from another snapshot sent meanwhile
    /// (``SnapshotCache``).
    func recordSnapshotDevices(encoded: Int, reused: Int) {
        for (source, count) in [("encoded", encoded), ("reused", reused)] where count > 0 {
            registry.makeCounter(
                descriptor: Self.name(
                    "snapshot_devices", "total",
                    "Devices sent in snapshots: encoded for the watcher, or reused from a snapshot sent meanwhile."),
                labels: [("source", source)]
            ).increment(by: Int64(count))
        }
    }

    /// Counts a supervised driver's restart after a crash.
    func recordDriverRestart(_ driver: String) {
        registry.makeCounter(
            descriptor: Self.name("driver_restarts", "total", "Restarts of supervised drivers after they exited."),
            labels: [("driver", driver)]
        ).increment()
    }

    /// Counts a failed storage write on `path`.
    func recordStorageFailure(path: HubEngine.StoragePath) {
        registry.makeCounter(
            descriptor: Self.name("storage_failures", "total", "Failed writes to the hub's database, by path."),
            labels: [("path", path.rawValue)]
        ).increment()
    }

    /// Sets, per storage path, whether its writes are failing now (1) or not (0); called at render.
    func refresh(storageFaults failing: Set<HubEngine.StoragePath>) {
        for path in HubEngine.StoragePath.allCases {
            registry.makeGauge(
                descriptor: Self.name("storage_fault", "", "1 while writes on this path fail (disk full or broken)."),
                labels: [("path", path.rawValue)]
            ).set(failing.contains(path) ? 1.0 : 0.0)
        }
    }

    /// Sets whether a supervised driver is marked failed (1) or not (0).
    func setDriverFailed(_ driver: String, _ failed: Bool) {
        registry.makeGauge(
            descriptor: Self.name("driver_failed", "", "1 while a supervised driver is failed (crashed too often)."),
            labels: [("driver", driver)]
        ).set(failed ? 1.0 : 0.0)
    }

    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "hearth", metricName: metric, unitName: unit, helpText: help)
    }

    static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
    static let sizeBuckets: [Double] = [0, 1, 4, 16, 64, 256, 1024, 4096, 16384, 65536]
}

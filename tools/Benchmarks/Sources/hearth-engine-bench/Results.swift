/// Memory before and after the driver announced `devices` lights to a fresh engine.
struct MemoryResult: Codable, Sendable {
    var devices: Int
    /// Resident bytes with the engine open and empty (after `malloc_trim`).
    var rssBeforeBytes: Int
    /// Resident bytes once every announcement was committed (after `malloc_trim`).
    var rssAfterBytes: Int
    /// (after − before) ÷ devices.
    var bytesPerDevice: Double
    /// Wall time of all announcements (each commits before it returns).
    var announceSeconds: Double
    /// The process's peak resident bytes (`VmHWM`) at that point.
    var peakRssBytes: Int
}

/// One measured window of driver reports with `subscribers` watchers attached.
///
/// The driver reports for ``seconds``; the window then lasts until the engine has published everything it
/// took (``publishSeconds``) and every subscriber has received it (``deliverSeconds``). Rates are over those
/// spans, so a group commit still running when the driver stops counts in full.
struct ThroughputResult: Codable, Sendable {
    var devices: Int
    var subscribers: Int
    /// How subscribers looked at each response: `scan` or `decode`.
    var subscriberWork: String
    var traitsPerReport: Int
    /// How long the driver loop reported.
    var seconds: Double
    /// Time from starting the subscribers until every one had its whole snapshot (0 without subscribers).
    var snapshotSeconds: Double
    /// Reports the driver loop made, and the trait changes in them per second: how fast the engine took them.
    var reports: Int
    var reportedPerSecond: Double
    /// From the window's start until every change reported in it (and before) was committed and published.
    var publishSeconds: Double
    /// Revisions and trait changes (`hearth_changes_total`) published in that span.
    var revisionsApplied: UInt64
    var changesApplied: Int
    /// ``changesApplied`` ÷ ``publishSeconds``.
    var appliedPerSecond: Double
    /// Group commits in that span, and the mean changes in one.
    var commits: Int
    var changesPerCommit: Double
    /// From the window's start until every subscriber had every published change (0 without subscribers).
    var deliverSeconds: Double
    /// Changes each subscriber received in that span, per second of it: mean and slowest. Fewer than
    /// applied when the engine coalesced a backlog (newest state per trait) or told a subscriber to re-list.
    var deliveredPerSubscriberPerSecond: Double
    var deliveredSlowestPerSecond: Double
    /// Response bytes each subscriber received in that span, per second (mean).
    var bytesPerSubscriberPerSecond: Double
    /// Reads of the change log that coalesced a backlog (all subscribers, in that span).
    var coalescedReads: Int
    /// Re-lists the subscribers were told in that span (each then watched again from 0: a new snapshot, whose
    /// changes are not counted as delivered).
    var relists: Int
    /// After the driver stopped: time until everything was published and delivered.
    var drainSeconds: Double
    /// Resident bytes when the driver stopped, subscribers attached.
    var rssBytes: Int
}

/// One start of the engine from a data directory another process filled.
struct ColdStartResult: Codable, Sendable {
    var devices: Int
    /// `HubEngine.open`: SQLite opened, every device and the retained change log loaded and decoded.
    var openSeconds: Double
    /// From before `open` until `info()` answered.
    var infoSeconds: Double
    /// From before `open` until a watcher from revision 0 had the whole snapshot (synced mark).
    var snapshotSeconds: Double
    /// From the parent starting the process until that snapshot: adds process start and library loading.
    var processReadySeconds: Double?
    /// Changes in that snapshot (structures, rooms, devices).
    var snapshotChanges: Int
    var rssBytes: Int
}

/// What one `measure` process found for one device count.
struct MeasureOutput: Codable, Sendable {
    var memory: MemoryResult
    var throughput: [ThroughputResult]
}

/// Everything one `hearth-engine-bench` run measured, as written by `--json`.
struct BenchReport: Codable, Sendable {
    struct Settings: Codable, Sendable {
        var devices: [Int]
        var subscribers: [Int]
        var seconds: Double
        var warmupSeconds: Double
        var traitsPerReport: Int
        var subscriberWork: String
        /// `HubEngine.Configuration.retainedChanges` (the engine's default unless `--retained-changes`).
        var retainedChanges: Int
        var coldStarts: Int
    }

    struct PerDeviceCount: Codable, Sendable {
        var devices: Int
        var memory: MemoryResult
        var throughput: [ThroughputResult]
        var coldStarts: [ColdStartResult]
    }

    var date: String
    var commit: String?
    var host: String
    var cpus: Int
    var loadAverageAtStart: String
    var loadAverageAtEnd: String
    var settings: Settings
    var results: [PerDeviceCount]
}

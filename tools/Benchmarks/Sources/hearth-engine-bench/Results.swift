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
struct ThroughputResult: Codable, Sendable {
    var devices: Int
    var subscribers: Int
    /// How subscribers looked at each response: `scan` or `decode`.
    var subscriberWork: String
    var traitsPerReport: Int
    /// The measured window (the driver loop's own clock).
    var seconds: Double
    /// Time from starting the subscribers until every one had its whole snapshot (0 without subscribers).
    var snapshotSeconds: Double
    /// Reports the driver loop made in the window.
    var reports: Int
    /// Revisions published (committed and visible to watchers) during the window.
    var revisionsApplied: UInt64
    /// Trait changes published during the window (`hearth_changes_total`).
    var changesApplied: Int
    var appliedPerSecond: Double
    var reportedPerSecond: Double
    /// Group commits during the window, and the mean changes in one.
    var commits: Int
    var changesPerCommit: Double
    /// Changes each subscriber received during the window, per second: mean and slowest.
    var deliveredPerSubscriberPerSecond: Double
    var deliveredSlowestPerSecond: Double
    /// Response bytes each subscriber received during the window, per second (mean).
    var bytesPerSubscriberPerSecond: Double
    /// Reads of the change log that coalesced a backlog (all subscribers, during the window).
    var coalescedReads: Int
    /// After the window: time until every report was published and every subscriber had reached it.
    var drainSeconds: Double
    /// Resident bytes at the end of the window, subscribers attached.
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
    var settings: Settings
    var results: [PerDeviceCount]
}

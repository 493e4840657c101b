public import Histogram

/// Latency percentiles, in milliseconds.
public struct Percentiles: Codable, Sendable, Hashable {
    public var count: UInt64
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double

    /// The percentiles of a histogram of microseconds.
    public init(_ histogram: Histogram<UInt64>) {
        func ms(_ value: UInt64) -> Double { (Double(value) / 1000 * 100).rounded() / 100 }
        count = histogram.totalCount
        p50 = ms(histogram.valueAtPercentile(50))
        p90 = ms(histogram.valueAtPercentile(90))
        p99 = ms(histogram.valueAtPercentile(99))
        p999 = ms(histogram.valueAtPercentile(99.9))
        max = ms(histogram.max)
    }
}

/// What one rate phase measured, over all clients but a stalled one.
public struct PhaseReport: Codable, Sendable, Hashable {
    /// `rate`, `commands` or `stall`.
    public var kind: String
    /// Reports per second asked of the drivers together.
    public var rate: Double
    /// Reports the drivers sent.
    public var sent: Int
    /// Reports the drivers could not make (DriverKit refused them).
    public var driverErrors: Int
    /// How far behind its schedule the slowest driver fell, in milliseconds.
    public var driverMaxLagMs: Double
    /// Delay from a report's due time to a client's publisher.
    public var latency: Percentiles
    /// New values delivered to the clients' publishers, per second of the phase.
    public var deliveriesPerSecond: Double
    /// Values skipped because a busy subscriber got the newest one (not an error).
    public var coalesced: UInt64
    /// Devices a client never saw reach their last report (lost updates).
    public var gaps: Int
    /// Devices delivered again with nothing new.
    public var duplicates: Int
    /// Older values after newer ones.
    public var regressions: Int
    /// Hub CPU over the phase, in percent of one core.
    public var hubCPUPercent: Double
    /// The hub's resident memory at the end of the phase, in MiB.
    public var hubMemoryMiB: Double
    /// Whether the rate passed: p99 under the target and nothing lost, repeated or reordered.
    public var passed: Bool
    /// For a stall phase: what the stalled client saw (its delays are not in ``latency``).
    public var stalledClient: StalledClient?
}

/// The stalled client of a stall phase.
public struct StalledClient: Codable, Sendable, Hashable {
    public var stallSeconds: Double
    public var deliveries: Int
    public var coalesced: UInt64
    public var latency: Percentiles
    /// Whether it reached every device's last report once the stall ended.
    public var caughtUp: Bool
}

/// Command round trips: client → hub → driver → hub → client.
public struct CommandReport: Codable, Sendable, Hashable {
    public var rate: Double
    public var sent: Int
    public var succeeded: Int
    /// Errors by `HomeError` code.
    public var errors: [String: Int]
    /// From each call's due time to its answer: what a caller on schedule waits, the generator's own
    /// lateness included.
    public var roundTrip: Percentiles
    /// From the moment `toggle()` is called (in the call's task) to its answer: the round trip through
    /// HearthSDK, the hub and HearthDriverKit alone.
    public var fromCall: Percentiles?
    /// How late the generator's thread woke for each due time (its `nanosleep`), before it started the task.
    public var generatorLate: Percentiles?
}

/// A whole run.
public struct LoadReport: Codable, Sendable, Hashable {
    public var plan: LoadPlan
    public var cores: Int
    /// Seconds from starting the hub process to its `LISTENING` line.
    public var hubStartSeconds: Double
    /// Seconds from starting the drivers until the hub has every device online.
    public var registerSeconds: Double
    /// Seconds from each client's `Home.connect` to its first `list()`.
    public var firstListSeconds: [String: Double]
    public var phases: [PhaseReport]
    public var commands: CommandReport?
    /// The highest rate that passed.
    public var maxSustainedRate: Double?
    /// The hub's peak resident memory over the run, in MiB.
    public var hubPeakMemoryMiB: Double
    /// Publishers that ended with an error.
    public var clientFailures: [String: String]
    /// One fresh client process's first `list()` and memory per device, when measured.
    public var clientFootprint: ClientFootprint?
    /// The same first listing by the peer command (`HEARTH_LOAD_PEER_LIST`, e.g. the stock grpcio client
    /// watching to its synced mark), when one was given.
    public var peerListSeconds: Double?

    /// Whether nothing was lost, repeated, reordered or failed (latency aside).
    public var clean: Bool {
        clientFailures.isEmpty && phases.allSatisfy { $0.gaps == 0 && $0.duplicates == 0 && $0.regressions == 0 && $0.driverErrors == 0 }
            && phases.compactMap(\.stalledClient).allSatisfy(\.caughtUp)
            && (commands.map { $0.errors.isEmpty } ?? true)
    }
}

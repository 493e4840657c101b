public import Histogram

/// What one client saw of the probes: delays, and whether anything was lost, repeated or went backwards.
///
/// A watch may coalesce (a busy subscriber gets the newest value), so a client can skip sequence numbers;
/// that is counted as `coalesced`, not as an error. The errors are:
/// - a **duplicate**: the same device delivered again with nothing changed (item publishers only);
/// - a **regression**: a sequence number lower than one already seen (stale data after fresh);
/// - a **gap**: at the end of a phase, a device whose last seen sequence number is not the driver's last
///   one (an update lost for good), found by ``missing(expected:)``.
public struct ProbeTracker: Sendable {
    /// Delay from the report's due time to the client's publisher, in microseconds.
    public private(set) var delays = Histogram<UInt64>.delays()
    /// New sequence numbers seen.
    public private(set) var deliveries = 0
    /// Sequence numbers skipped by coalescing.
    public private(set) var coalesced: UInt64 = 0
    /// Deliveries of a device with nothing new.
    public private(set) var duplicates = 0
    /// Sequence numbers lower than one already seen.
    public private(set) var regressions = 0
    /// Deliveries of a device whose probe did not move but whose state did (the real attribute and the
    /// probe landing in two revisions); neither loss nor repetition.
    public private(set) var intermediate = 0
    /// Last sequence number seen per device, and how to hash the state it came with.
    public private(set) var last: [String: (seq: UInt64, state: @Sendable () -> Int)] = [:]

    public init() {}

    /// Makes room for `devices` baselines at once (growing by doubling to 100,000 devices re-hashed every id
    /// at each step: 4 % of the process while ten clients joined).
    public mutating func reserve(devices: Int) { last.reserveCapacity(devices) }

    /// A device as a publisher delivered it at `now` (monotonic ns). `state` is a hash of the whole device,
    /// to tell a repeated delivery from an intermediate one; `isItem` is false for whole-set emissions,
    /// where unchanged devices are expected.
    public mutating func observe(device: String, reading: LoadProbe.Reading, state: Int, now: UInt64, isItem: Bool) {
        observe(device: device, reading: reading, now: now, isItem: isItem, state: { state })
    }

    /// ``observe(device:reading:state:now:isItem:)`` with the state's hash taken only when it is needed: when
    /// a delivery's sequence number equals the last one's (both hashes are then taken). Hashing every
    /// delivered device decoded all of its traits, a tenth of the process holding the `building` mix's
    /// clients.
    public mutating func observe(
        device: String, reading: LoadProbe.Reading, now: UInt64, isItem: Bool, state: @escaping @Sendable () -> Int
    ) {
        guard let previous = last[device] else {
            last[device] = (reading.seq, state)  // the baseline: what the client had before measuring
            return
        }
        if reading.seq > previous.seq {
            deliveries += 1
            coalesced += reading.seq - previous.seq - 1
            _ = delays.record((now - min(now, reading.sentAt)) / 1000)
        } else if reading.seq < previous.seq {
            regressions += 1
            return
        } else if isItem {
            if state() == previous.state() { duplicates += 1 } else { intermediate += 1 }
        }
        last[device] = (reading.seq, state)
    }

    /// The devices of `expected` (device → the driver's last `seq`) this client has not reached.
    public func missing(expected: [String: UInt64]) -> [String] {
        expected.compactMap { device, seq in (last[device]?.seq ?? 0) < seq ? device : nil }
    }

    /// What a phase counted, without the per-device state (cheap to take while deliveries go on).
    public struct Summary: Sendable {
        public var delays: Histogram<UInt64>
        public var deliveries: Int
        public var coalesced: UInt64
        public var duplicates: Int
        public var regressions: Int
    }

    /// The phase's counters and delays.
    public var summary: Summary {
        Summary(delays: delays, deliveries: deliveries, coalesced: coalesced, duplicates: duplicates, regressions: regressions)
    }

    /// Starts a new phase: the counters and delays reset, the last values stay as the baseline.
    public mutating func startPhase() {
        delays.reset()
        deliveries = 0
        coalesced = 0
        duplicates = 0
        regressions = 0
        intermediate = 0
    }
}

extension Histogram<UInt64> {
    /// The shape every load-test delay is recorded in: microseconds, 1 µs to 10 minutes, 3 significant digits.
    public static func delays() -> Self {
        Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
    }
}

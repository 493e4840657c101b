#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import HearthModel
public import HearthTypes

/// The vendor trait every load-test device carries beside its real traits: the driver's sequence number
/// of the device's latest report, and when that report was due.
///
/// A driver changes a device's real attribute (a light's level, a sensor's reading) and its probe in the
/// same report, so a client that sees a new `seq` sees the real change with it and can compute the delay
/// from `sentAt`. Both clocks are `CLOCK_MONOTONIC` of the same machine, which every process shares.
public enum LoadProbe {
    /// The trait's id: test vendor 0xFFF1, manufacturer-specific suffix.
    public static let traitID: TraitID = 0xFFF1_FC7E
    /// `seq`: how many reports the driver has made for the device (0 at announce).
    public static let seq: AttributeID = 0x0000
    /// `sentAt`: `CLOCK_MONOTONIC` nanoseconds at which the report was due (open-loop schedule).
    public static let sentAt: AttributeID = 0x0001

    /// The schema the load driver announces at run time.
    public static let schema = TraitSchema(
        id: traitID, name: "LoadProbe", namespace: .vendor("HearthLoad"), revision: 1,
        description: "The load test's sequence number and send time of a device's latest report.",
        attributes: [
            AttributeSchema(id: seq, name: "seq", type: .uint(bits: 64), defaultValue: .uint(0), description: "Reports so far."),
            AttributeSchema(
                id: sentAt, name: "sentAt", type: .uint(bits: 64), defaultValue: .uint(0),
                description: "CLOCK_MONOTONIC nanoseconds at which the report was due."),
        ])

    /// The probe's values in a trait collection, or nil when it has none.
    public static func reading(_ traits: TraitCollection) -> Reading? {
        traits.data[traitID].flatMap(reading)
    }

    /// The probe's values in its trait's data.
    public static func reading(_ data: TraitData) -> Reading? {
        guard case .uint(let seq)? = data.attributes[seq],
            case .uint(let sentAt)? = data.attributes[sentAt]
        else { return nil }
        return Reading(seq: seq, sentAt: sentAt)
    }

    /// The monotonic clock, in nanoseconds, as every process on the machine reads it.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// One reading of the probe.
    public struct Reading: Sendable, Hashable {
        /// The device's report count.
        public var seq: UInt64
        /// When that report was due.
        public var sentAt: UInt64

        public init(seq: UInt64, sentAt: UInt64) {
            self.seq = seq
            self.sentAt = sentAt
        }
    }
}

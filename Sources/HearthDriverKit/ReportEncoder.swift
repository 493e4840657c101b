import HearthModel
import HearthProto

/// Encodes a `DriverMessage { report: Report { traits } }` straight from the store's pending reports.
///
/// Building `Hearth_V1_TraitReport`, `Attribute` and `Value` messages only to have swift-protobuf size them
/// (its size pass walks repeated fields through unspecialized generic code, allocating per element) and
/// encode them was about a fifth of a driver's CPU per report. The bytes are swift-protobuf's for the same
/// message (`ReportEncoderTests`), so the hub decodes them as before.
enum ReportEncoder {

    /// The encoded message for `reports` (all in one message), written in one pass: each nested message's
    /// length is put in front of it once it is written (``ProtoBytes/appendDelimited(_:to:_:)``), where a
    /// pass sizing every report and attribute first walked each attribute dictionary twice.
    static func driverMessage(_ reports: some Collection<(key: TraitKey, value: DeviceStore.PendingReport)>) -> [UInt8] {
        var out: [UInt8] = []
        // Most reports are a device id and a few attributes: room for that, growing geometrically past it.
        out.reserveCapacity(8 + reports.count * 64)
        ProtoBytes.appendDelimited(3, to: &out) { out in  // DriverMessage.report = 3
            for (key, pending) in reports {
                ProtoBytes.appendDelimited(1, to: &out) { out in  // Report.traits = 1
                    // TraitReport: device_id = 1, endpoint = 2, trait_id = 3, attributes = 4, connectivity = 5.
                    ProtoBytes.appendStringField(1, key.device, to: &out)
                    ProtoBytes.appendVarintField(2, UInt64(key.endpoint), to: &out)
                    ProtoBytes.appendVarintField(3, UInt64(key.trait.rawValue), to: &out)
                    Value.appendAttributesField(4, pending.attributes, to: &out)
                    ProtoBytes.appendVarintField(5, connectivity(pending), to: &out)
                }
            }
        }
        return out
    }

    /// The report's connectivity on the wire; unset (UNKNOWN, 0) when the report does not change it.
    private static func connectivity(_ pending: DeviceStore.PendingReport) -> UInt64 {
        pending.connectivity.map { UInt64($0.proto.rawValue) } ?? 0
    }
}

import HearthModel
import HearthProto

/// Encodes a `DriverMessage { report: Report { traits } }` straight from the store's pending reports.
///
/// Building `Hearth_V1_TraitReport`, `Attribute` and `Value` messages only to have swift-protobuf size them
/// (its size pass walks repeated fields through unspecialized generic code, allocating per element) and
/// encode them was about a fifth of a driver's CPU per report. The bytes are swift-protobuf's for the same
/// message (`ReportEncoderTests`), so the hub decodes them as before.
enum ReportEncoder {

    /// The encoded message for `reports` (all in one message).
    static func driverMessage(_ reports: some Collection<(key: TraitKey, value: DeviceStore.PendingReport)>) -> [UInt8] {
        // Sizes first (a message is prefixed by its length), then the bytes.
        var sizes: [Int] = []
        sizes.reserveCapacity(reports.count)
        var reportSize = 0
        for (key, pending) in reports {
            let size =
                ProtoBytes.stringFieldSize(key.device) + ProtoBytes.varintFieldSize(UInt64(key.endpoint))
                + ProtoBytes.varintFieldSize(UInt64(key.trait.rawValue)) + Value.attributesFieldSize(pending.attributes)
                + ProtoBytes.varintFieldSize(connectivity(pending))
            sizes.append(size)
            reportSize += ProtoBytes.delimitedFieldSize(size)
        }
        var out: [UInt8] = []
        out.reserveCapacity(ProtoBytes.delimitedFieldSize(reportSize))
        ProtoBytes.appendDelimitedHeader(3, length: reportSize, to: &out)  // DriverMessage.report = 3
        for ((key, pending), size) in zip(reports, sizes) {
            ProtoBytes.appendDelimitedHeader(1, length: size, to: &out)  // Report.traits = 1
            // TraitReport: device_id = 1, endpoint = 2, trait_id = 3, attributes = 4, connectivity = 5.
            ProtoBytes.appendStringField(1, key.device, to: &out)
            ProtoBytes.appendVarintField(2, UInt64(key.endpoint), to: &out)
            ProtoBytes.appendVarintField(3, UInt64(key.trait.rawValue), to: &out)
            Value.appendAttributesField(4, pending.attributes, to: &out)
            ProtoBytes.appendVarintField(5, connectivity(pending), to: &out)
        }
        return out
    }

    /// The report's connectivity on the wire; unset (UNKNOWN, 0) when the report does not change it.
    private static func connectivity(_ pending: DeviceStore.PendingReport) -> UInt64 {
        pending.connectivity.map { UInt64($0.proto.rawValue) } ?? 0
    }
}

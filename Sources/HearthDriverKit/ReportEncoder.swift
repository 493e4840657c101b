import HearthModel
import HearthProto

/// Encodes a `DriverMessage { report: Report { traits } }` straight from the store's pending reports.
///
/// Building `Hearth_V1_TraitReport`, `Attribute` and `Value` messages only to have swift-protobuf size them
/// (its size pass walks repeated fields through unspecialized generic code, allocating per element) and
/// encode them was about a fifth of a driver's CPU per report. The bytes are swift-protobuf's for the same
/// message (`ReportEncoderTests`), so the hub decodes them as before.
enum ReportEncoder {
    /// One trait's report, its attributes in id order, and the size of its message body.
    private struct Trait {
        var key: TraitKey
        var attributes: [(key: AttributeID, value: Value)]
        var connectivity: UInt64
        var size: Int
    }

    /// The encoded message for `reports` (all in one message).
    static func driverMessage(_ reports: some Collection<(key: TraitKey, value: DeviceStore.PendingReport)>) -> [UInt8] {
        var traits: [Trait] = []
        traits.reserveCapacity(reports.count)
        var reportSize = 0
        for (key, pending) in reports {
            let attributes = pending.attributes.sorted { $0.key < $1.key }
            let connectivity = pending.connectivity.map { UInt64($0.proto.rawValue) } ?? 0
            var size =
                (key.device.utf8.isEmpty ? 0 : ProtoBytes.delimitedFieldSize(key.device.utf8.count))
                + ProtoBytes.varintFieldSize(UInt64(key.endpoint))
                + ProtoBytes.varintFieldSize(UInt64(key.trait.rawValue))
                + ProtoBytes.varintFieldSize(connectivity)
            for (id, value) in attributes {
                size += ProtoBytes.delimitedFieldSize(Value.idAndValueSize(id.rawValue, value))
            }
            traits.append(Trait(key: key, attributes: attributes, connectivity: connectivity, size: size))
            reportSize += ProtoBytes.delimitedFieldSize(size)
        }
        var out: [UInt8] = []
        out.reserveCapacity(ProtoBytes.delimitedFieldSize(reportSize))
        // DriverMessage.report = 3.
        ProtoBytes.appendKey(3, ProtoBytes.lengthDelimited, to: &out)
        ProtoBytes.appendVarint(UInt64(reportSize), to: &out)
        for trait in traits {
            // Report.traits = 1.
            ProtoBytes.appendKey(1, ProtoBytes.lengthDelimited, to: &out)
            ProtoBytes.appendVarint(UInt64(trait.size), to: &out)
            // TraitReport: device_id = 1, endpoint = 2, trait_id = 3, attributes = 4, connectivity = 5.
            ProtoBytes.appendStringField(1, trait.key.device, to: &out)
            ProtoBytes.appendVarintField(2, UInt64(trait.key.endpoint), to: &out)
            ProtoBytes.appendVarintField(3, UInt64(trait.key.trait.rawValue), to: &out)
            for (id, value) in trait.attributes {
                ProtoBytes.appendKey(4, ProtoBytes.lengthDelimited, to: &out)
                ProtoBytes.appendVarint(UInt64(Value.idAndValueSize(id.rawValue, value)), to: &out)
                Value.appendIDAndValue(id.rawValue, value, to: &out)
            }
            ProtoBytes.appendVarintField(5, trait.connectivity, to: &out)
        }
        return out
    }
}

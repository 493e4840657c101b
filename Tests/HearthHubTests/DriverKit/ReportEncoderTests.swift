@testable import HearthDriverKit
import HearthModel
import HearthProto
import HearthTypes
import OrderedCollections
import SwiftProtobuf
import Testing

/// The driver's reports, encoded straight from its store, are swift-protobuf's bytes for the same message.
@Suite("ReportEncoder: reports encoded by hand, byte for byte swift-protobuf's")
struct ReportEncoderTests {
    /// The message swift-protobuf would have encoded for these pending reports.
    static func expected(_ reports: OrderedDictionary<TraitKey, DeviceStore.PendingReport>) throws -> [UInt8] {
        var message = Hearth_V1_DriverMessage()
        message.report.traits = reports.map { key, pending in
            var report = Hearth_V1_TraitReport()
            report.deviceID = key.device
            report.endpoint = key.endpoint
            report.traitID = key.trait.rawValue
            report.attributes = TraitDescription.proto(pending.attributes)
            if let connectivity = pending.connectivity { report.connectivity = connectivity.proto }
            return report
        }
        return try message.serializedBytes()
    }

    @Test("every kind of value, endpoint 0 and not, connectivity set, unknown and unset, empty attributes")
    func bytes() throws {
        var reports: OrderedDictionary<TraitKey, DeviceStore.PendingReport> = [:]
        for (index, value) in ValueSamples.all.enumerated() {
            let key = TraitKey(device: "dev-\(index)", endpoint: UInt32(index % 3), trait: TraitID(rawValue: UInt32(index * 97)))
            let connectivity: ConnectivityState? = [nil, .online, .offline, .unknown, .partiallyOnline][index % 5]
            reports[key] = .init(attributes: [AttributeID(rawValue: UInt32(index)): value, 0x4000: .uint(UInt64(index))],
                                 connectivity: connectivity)
        }
        reports[TraitKey(device: "", endpoint: 0, trait: 0)] = .init(attributes: [:], connectivity: .offline)
        reports[TraitKey(device: "ünï", endpoint: 1, trait: 6)] = .init(attributes: [:], connectivity: nil)
        #expect(ReportEncoder.driverMessage(reports.elements) == (try Self.expected(reports)))
        // A slice, as the writer chunks by maxTraitsPerReport.
        let slice = reports.elements[2..<7]
        #expect(ReportEncoder.driverMessage(slice) == (try Self.expected(OrderedDictionary(uniqueKeysWithValues: slice.map { ($0.key, $0.value) }))))
    }

    @Test("the hub's decoder reads the attributes back as they were")
    func roundTrip() throws {
        let key = TraitKey(device: "lamp", endpoint: 1, trait: 0x0008)
        let attributes: [AttributeID: Value] = [0: .uint(200), 1: .null, 0x4001: .struct([0: .list([.int(-3)])])]
        let bytes = ReportEncoder.driverMessage([(key: key, value: DeviceStore.PendingReport(attributes: attributes))])
        let message = try Hearth_V1_DriverMessage(serializedBytes: bytes)
        guard case .report(let report) = message.kind else { Issue.record("not a report"); return }
        #expect(report.traits.count == 1)
        #expect(report.traits[0].deviceID == "lamp" && report.traits[0].endpoint == 1 && report.traits[0].traitID == 8)
        let decoded = Dictionary(uniqueKeysWithValues: report.traits[0].attributes.map { (AttributeID(rawValue: $0.id), Value(proto: $0.value)) })
        #expect(decoded == attributes)
    }
}

/// Values of every kind, nested ones included.
enum ValueSamples {
    static let all: [Value] = [
        .bool(true), .bool(false), .int(-27315), .int(0), .int(Int64.min), .uint(UInt64.max), .uint(0), .double(0.25),
        .double(-0.0), .string("naïve ☕"), .string(""), .bytes([0, 255, 7]), .bytes([]), .enum(3), .enum(0), .null,
        .list([.uint(1), .uint(2)]), .list([]), .struct([:]), .struct([0: .bool(false), 3: .list([.null])]),
        .list([.list([.struct([1: .string("a"), 0x1_0000: .int(-5)])])]),
    ]
}

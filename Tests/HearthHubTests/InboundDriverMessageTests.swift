@testable import HearthHub
import HearthModel
import HearthProto
import HearthWire
import NIOCore
import SwiftProtobuf
import Testing

/// A driver's reports are read straight into the traits the engine applies; they must be what swift-protobuf's
/// decoding gives, and every other message (or a report the direct reader leaves) must come through
/// swift-protobuf.
@Suite("Driver messages as the hub reads them: reports directly, the rest through swift-protobuf")
struct InboundDriverMessageTests {
    /// A report of every sample device's traits, with a connectivity on some.
    static var report: Hearth_V1_DriverMessage {
        var message = Hearth_V1_DriverMessage()
        message.report.traits = RecordDecodingTests.devices.flatMap { device in
            device.types.flatMap { type in
                type.traits.enumerated().map { index, trait in
                    var item = Hearth_V1_TraitReport()
                    item.deviceID = device.localID
                    item.endpoint = type.endpoint
                    item.traitID = trait.traitID.rawValue
                    item.attributes = TraitRecord.protoAttributes(trait.attributes)
                    if index == 1 { item.connectivity = .offline }
                    return item
                }
            }
        }
        return message
    }

    static func read(_ bytes: [UInt8]) throws -> InboundDriverMessage {
        try InboundDriverMessage.connect.requestCodec.deserialize(ByteBuffer(bytes: bytes))
    }

    /// Traits as an encoded report: compares values bit for bit (a NaN equals itself).
    static func encoded(_ traits: [ReportedTrait]) throws -> [UInt8] {
        var report = Hearth_V1_Report()
        report.traits = traits.map(\.proto)
        return try report.serializedBytes()
    }

    @Test("a report reads directly into the traits swift-protobuf's decoding gives")
    func report() throws {
        let message = Self.report
        let bytes: [UInt8] = try message.serializedBytes()
        guard case .report(let traits) = try Self.read(bytes) else {
            Issue.record("a plain report was not read directly")
            return
        }
        #expect(traits == message.report.traits.map(ReportedTrait.init(proto:)))
        #expect(traits.count == RecordDecodingTests.devices.flatMap { $0.types.flatMap(\.traits) }.count)
        #expect(traits.contains { $0.connectivity == .offline })
    }

    @Test("other messages, and a report given twice (protobuf merges it), come through swift-protobuf")
    func others() throws {
        var hello = Hearth_V1_DriverMessage()
        hello.hello.driverID = "lights"
        guard case .other(let decoded) = try Self.read(try hello.serializedBytes()), case .hello = decoded.kind else {
            Issue.record("Hello was not read through swift-protobuf")
            return
        }
        let once: [UInt8] = try Self.report.serializedBytes()
        guard case .other(let twice) = try Self.read(once + once), case .report(let merged) = twice.kind else {
            Issue.record("a doubled report was not left to swift-protobuf")
            return
        }
        #expect(merged.traits.count == 2 * Self.report.report.traits.count)
        // An empty message is swift-protobuf's too (the hub refuses it as empty).
        guard case .other(let empty) = try Self.read([]) else {
            Issue.record("an empty message was read as a report")
            return
        }
        #expect(empty.kind == nil)
    }

    @Test("a damaged report is read as swift-protobuf reads it, or refused by both, or left to swift-protobuf")
    func damaged() throws {
        let bytes: [UInt8] = try Self.report.serializedBytes()
        let variants = damagedVariants(of: bytes, keys: [0x1A, 0x0D])
        var direct = 0
        for variant in variants {
            let protobuf = try? Hearth_V1_DriverMessage(serializedBytes: variant)
            switch try? Self.read(variant) {
            case .report(let traits)?:
                direct += 1
                guard case .report(let report)? = protobuf?.kind else {
                    Issue.record("read directly but swift-protobuf refuses it: \(variant)")
                    continue
                }
                #expect(try Self.encoded(traits) == Self.encoded(report.traits.map(ReportedTrait.init(proto:))))
            case .other(let message)?:
                #expect(message == protobuf)
            case nil:
                #expect(protobuf == nil)
            }
        }
        #expect(direct > 100)
    }
}

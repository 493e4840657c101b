import HearthModel
import HearthProto
import HearthWire
import NIOCore
import SwiftProtobuf

/// One trait of a driver's report, as the engine applies it.
struct ReportedTrait: Sendable, Equatable {
    /// The driver's local id of the device.
    var deviceID: String
    var endpoint: UInt32
    var traitID: TraitID
    var attributes: [AttributeID: Value]
    /// UNKNOWN (unset) means online.
    var connectivity: Hearth_V1_ConnectivityState
}

extension ReportedTrait {
    init(proto: Hearth_V1_TraitReport) {
        self.init(
            deviceID: proto.deviceID, endpoint: proto.endpoint, traitID: TraitID(proto.traitID),
            attributes: TraitRecord.attributes(proto.attributes), connectivity: proto.connectivity)
    }

    /// Reads a `hearth.v1.TraitReport` message body (``ProtoReader``).
    init(protoBytes bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
        var reader = ProtoReader(bytes)
        self.init(deviceID: "", endpoint: 0, traitID: TraitID(0), attributes: [:], connectivity: .unknown)
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: deviceID = try reader.string(wireType: wireType)
            case 2: endpoint = UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType))
            case 3: traitID = TraitID(UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType)))
            case 4:
                let (id, value) = try Value.idAndValue(reader.delimited(wireType: wireType))
                attributes[AttributeID(id)] = value
            case 5: connectivity = try reader.connectivity(wireType: wireType)
            default: try reader.skip(wireType: wireType)
            }
        }
    }
}

/// A message on a driver's stream as the hub reads it: a report read straight into the traits the engine
/// applies, anything else as swift-protobuf decodes it.
///
/// Reports are nearly all a driver sends. Decoding each through `DriverMessage`, `Report`, `TraitReport`,
/// `Attribute` and `Value` messages, then converting those, was a seventh of the hub's event-loop time at
/// 50,000 changes/s. A report the direct reader does not handle (``ProtoReader`` says which) is decoded by
/// swift-protobuf and applied as before.
enum InboundDriverMessage: Sendable {
    case report([ReportedTrait])
    case other(Hearth_V1_DriverMessage)

    /// `DriverService/Connect` as the hub serves it: requests read as ``InboundDriverMessage``.
    static let connect = MethodDescriptor<InboundDriverMessage, Hearth_V1_HubMessage>(
        service: DriverMethods.service, method: "Connect", kind: .bidirectionalStreaming,
        requestCodec: MessageCodec(
            serialize: { message in
                switch message {
                case .other(let message): return try message.serializedBytes()
                case .report(let traits):
                    var out = Hearth_V1_DriverMessage()
                    out.report.traits = traits.map(\.proto)
                    return try out.serializedBytes()
                }
            },
            deserialize: { buffer in
                let direct = buffer.withUnsafeReadableBytes { try? Self.directReport($0) }
                if let direct { return .report(direct) }
                return .other(try DriverMethods.connect.requestCodec.deserialize(buffer))
            }),
        responseCodec: DriverMethods.connect.responseCodec)

    /// The traits of a `DriverMessage` that is a report and nothing else; throws for any other message.
    static func directReport(_ bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) -> [ReportedTrait] {
        // DriverMessage.report = 3; the oneof's other members are 1 to 6.
        guard let report = try ProtoReader.onlyMessageField(3, in: bytes, otherMembers: 1...6) else {
            throw ProtoReader.Unsupported()
        }
        var traits: [ReportedTrait] = []
        var fields = ProtoReader(report)
        while let (number, wireType) = try fields.nextField() {
            guard number == 1 else {
                try fields.skip(wireType: wireType)
                continue
            }
            traits.append(try ReportedTrait(protoBytes: fields.delimited(wireType: wireType)))
        }
        return traits
    }
}

extension ReportedTrait {
    /// The trait as a `TraitReport` message.
    var proto: Hearth_V1_TraitReport {
        var out = Hearth_V1_TraitReport()
        out.deviceID = deviceID
        out.endpoint = endpoint
        out.traitID = traitID.rawValue
        out.attributes = TraitRecord.protoAttributes(attributes)
        out.connectivity = connectivity
        return out
    }
}

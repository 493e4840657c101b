import FuzzSupport
import HearthModel
import HearthProto
import SwiftProtobuf

/// Seeds of `FuzzValueValidator`: the selector byte, then the protobuf bytes of a trait report, a command
/// request, a command's response fields, an event or a bare value, built from every builtin trait's schema.
enum ValueSeeds {
    static func write(_ corpus: inout Corpus) throws {
        for id in Catalog.sortedBuiltinTraitIDs {
            let trait = Catalog.builtin.trait(id)!
            var report = Hearth_V1_TraitReport()
            report.deviceID = "device-1"
            report.endpoint = 1
            report.traitID = id.rawValue
            report.attributes = Samples.attributes(of: trait).sorted { $0.key < $1.key }.map { id, value in
                .with {
                    $0.id = id.rawValue
                    $0.value = value.proto
                }
            }
            try corpus.add("report-\(trait.name)", [0] + report.serializedBytes())
            for command in trait.commands {
                var request = Hearth_V1_CommandRequest()
                request.correlationID = 1
                request.deviceID = "device-1"
                request.endpoint = 1
                request.traitID = id.rawValue
                request.commandID = command.id.rawValue
                request.fields = Value.protoStruct(Samples.fields(command.fields, in: trait).structFields ?? [:])
                try corpus.add("command-\(trait.name)-\(command.name)", [1] + request.serializedBytes())
                if let name = command.response, let response = trait.response(named: name) {
                    request.fields = Value.protoStruct(Samples.fields(response.fields, in: trait).structFields ?? [:])
                    try corpus.add("response-\(trait.name)-\(command.name)", [2] + request.serializedBytes())
                }
            }
            for event in trait.events {
                var wire = Hearth_V1_Event()
                wire.deviceID = "device-1"
                wire.endpoint = 1
                wire.traitID = id.rawValue
                wire.eventID = event.id.rawValue
                wire.fields = Value.protoStruct(Samples.fields(event.fields, in: trait).structFields ?? [:])
                try corpus.add("event-\(trait.name)-\(event.name)", [3] + wire.serializedBytes())
            }
        }
        let values: [(String, Value)] = [
            ("bool", .bool(true)), ("int", .int(-5)), ("uint", .uint(254)), ("double", .double(21.5)),
            ("string", .string("Kitchen")), ("bytes", .bytes([0, 255])), ("enum", .enum(1)), ("null", .null),
            ("list", .list([.uint(1), .uint(2)])), ("struct", .struct([0: .uint(1), 1: .string("x")])),
            ("nested", .list([.struct([0: .list([.enum(2)])])])),
        ]
        for (index, (name, value)) in values.enumerated() {
            // Low bits 4: a bare value; the upper five bits pick the trait whose attributes it is checked against.
            try corpus.add("value-\(name)", [UInt8(4 | (index % 32) << 3)] + value.proto.serializedBytes())
        }
    }
}

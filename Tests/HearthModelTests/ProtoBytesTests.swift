import HearthModel
import HearthProto
import SwiftProtobuf
import Testing

/// `ProtoBytes` writes what swift-protobuf writes for the same message, byte for byte.
@Suite("ProtoBytes: Value encoded by hand")
struct ProtoBytesTests {
    static let samples: [Value] = ValueTests.samples + [
        .bool(false), .int(0), .int(-1), .int(Int64.min), .int(Int64.max), .uint(0), .uint(127), .uint(128),
        .double(0), .double(-0.0), .double(.infinity), .string(""), .string(String(repeating: "x", count: 200)),
        .bytes([]), .enum(0), .enum(UInt32.max),
        .list([.list([.struct([1: .string("a"), 0x1_0000: .int(-5)])]), .null, .bool(false)]),
        .struct([0: .null, 7: .struct([2: .list([.uint(300), .double(1.5)])]), 1000: .bytes(Array(0..<200))]),
        // Lengths written after their bodies (`appendDelimited`): one, two and three varint bytes, nested.
        .list([.struct([1: .bytes(Array(repeating: 7, count: 20_000))]), .string(String(repeating: "y", count: 127))]),
    ]

    @Test("a Value's bytes and size match swift-protobuf's", arguments: samples)
    func value(_ value: Value) throws {
        let expected: [UInt8] = try value.proto.serializedBytes()
        var out: [UInt8] = []
        value.appendProto(to: &out)
        #expect(out == expected)
        #expect(value.protoSize == expected.count)
    }

    @Test("a field holding an id and a value (Attribute, Field) matches swift-protobuf's, id 0 left out",
          arguments: [0, 1, 0x4000, UInt32.max])
    func idAndValueField(_ id: UInt32) throws {
        for value in Self.samples {
            // A struct of one field is that field's bytes: field 1 holding `Field { id, value }`.
            var message = Hearth_V1_StructValue()
            message.fields = [.with { $0.id = id; $0.value = value.proto }]
            let expected: [UInt8] = try message.serializedBytes()
            var out: [UInt8] = []
            Value.appendIDAndValueField(1, id, value, to: &out)
            #expect(out == expected)
            #expect(Value.idAndValueFieldSize(id, value) == expected.count)
        }
    }

    @Test("attributes as a repeated field: in id order, sized as written (none, one, two, all samples)",
          arguments: [0, 1, 2, Int.max])
    func attributes(count: Int) throws {
        let attributes = Dictionary(
            uniqueKeysWithValues: Self.samples.enumerated().prefix(count).map {
                (AttributeID(rawValue: UInt32($0.offset * 37)), $0.element)
            })
        var message = Hearth_V1_TraitState()
        message.attributes = attributes.sorted { $0.key < $1.key }.map { id, value in
            .with { $0.id = id.rawValue; $0.value = value.proto }
        }
        let expected: [UInt8] = try message.serializedBytes()  // TraitState.attributes is field 2, alone here
        var out: [UInt8] = []
        Value.appendAttributesField(2, attributes, to: &out)
        #expect(out == expected)
        #expect(Value.attributesFieldSize(attributes) == expected.count)
    }

    @Test("varint sizes at every byte boundary")
    func varintSizes() {
        for shift in 0..<64 {
            for value in [UInt64(1) << shift, (UInt64(1) << shift) - 1] {
                var out: [UInt8] = []
                ProtoBytes.appendVarint(value, to: &out)
                #expect(ProtoBytes.varintSize(value) == out.count, "\(value)")
            }
        }
        #expect(ProtoBytes.varintSize(UInt64.max) == 10)
    }
}

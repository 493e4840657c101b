import HearthModel
import HearthProto
@testable import HearthSDK
import SwiftProtobuf
import Testing

/// The cache keeps each attribute as its id and its value's one field. Equal states must be kept as equal
/// bytes (a repeat is no change), whatever shape protobuf allowed them on the wire, and every value must
/// read back as it was sent.
@Suite("SDK: attributes kept as id and value")
struct SDKCompactAttributesTests {
    /// A `TraitState` body holding the given `Attribute` bodies, each as field 2.
    static func state(_ attributes: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [0x08, 0x08]  // trait id 8
        for body in attributes { out += [0x12, UInt8(body.count)] + body }
        return out
    }

    static func kept(_ body: [UInt8]) throws -> CompactTrait {
        try body.withUnsafeBytes { try CompactTrait(protoBytes: $0) }
    }

    @Test("every kind of value reads back as sent, from the reader's path and from swift-protobuf's")
    func roundTrip() throws {
        let values: [Value] = [
            .bool(true), .bool(false), .int(-5), .uint(300), .double(21.5), .string(""), .string("hall"), .bytes([1, 2]),
            .list([.uint(1), .null]), .struct([FieldID(2): .string("x")]), .enum(3), .null,
        ]
        let proto = SDKWatchDecodingTests.trait(8, values, revision: 1)
        let direct = try Self.kept(proto.serializedBytes() as [UInt8])
        let converted = CompactTrait(proto)
        let expected = Dictionary(uniqueKeysWithValues: values.enumerated().map { (AttributeID(UInt32($0 * 3)), $1) })
        #expect(direct.values() == expected)
        #expect(direct.attributes == converted.attributes)
        #expect(direct.encodedAttributes().map(\.id) == expected.keys.map(\.rawValue).sorted())
        // Five bytes fewer per attribute than the field 2 entries they came as; three for the first, whose id
        // (0) protobuf leaves out and the cache writes.
        let entries: [UInt8] = try Hearth_V1_TraitState.with { $0.attributes = proto.attributes }.serializedBytes()
        #expect(direct.attributes.count == entries.count - 5 * values.count + 2)
    }

    @Test("an attribute given in another shape is kept as the same bytes as its usual one")
    func sameBytes() throws {
        let usual = try Self.kept(Self.state([[0x08, 0x03, 0x12, 0x02, 0x18, 0x05]]))  // id 3, uint 5
        let shapes: [[UInt8]] = [
            [0x12, 0x02, 0x18, 0x05, 0x08, 0x03],  // the value before the id
            [0x08, 0x83, 0x00, 0x12, 0x02, 0x18, 0x05],  // the id padded to two bytes
            [0x08, 0x09, 0x08, 0x03, 0x12, 0x02, 0x18, 0x05],  // the id given twice, the last standing
            [0x08, 0x03, 0x12, 0x04, 0x08, 0x01, 0x18, 0x05],  // two members of the oneof, the last standing
            [0x08, 0x03, 0x12, 0x05, 0x18, 0x05, 0xA0, 0x01, 0x07],  // an unknown field (20) after the value
            [0x08, 0x03, 0x30, 0x01, 0x12, 0x02, 0x18, 0x05],  // an unknown field (6) in the attribute
        ]
        for shape in shapes {
            let kept = try Self.kept(Self.state([shape]))
            #expect(kept.attributes == usual.attributes, "\(shape)")
            #expect(kept.values() == [AttributeID(3): .uint(5)])
        }
        // A missing value, an empty one, a null of 1 and a value of an unknown field alone are all null, kept
        // as null is written.
        let null = try Self.kept(Self.state([[0x08, 0x03, 0x12, 0x02, 0x50, 0x00]]))
        let nulls: [[UInt8]] = [
            [0x08, 0x03], [0x08, 0x03, 0x12, 0x00], [0x08, 0x03, 0x12, 0x02, 0x50, 0x01],
            [0x08, 0x03, 0x12, 0x03, 0xA0, 0x01, 0x07],
        ]
        for shape in nulls {
            let kept = try Self.kept(Self.state([shape]))
            #expect(kept.attributes == null.attributes && kept.values() == [AttributeID(3): .null], "\(shape)")
        }
    }

    @Test("one field in a shape protobuf allows but Value does not write is kept as Value writes it")
    func oneFieldReshaped() throws {
        let cases: [(usual: [UInt8], other: [UInt8], value: Value)] = [
            ([0x18, 0x05], [0x18, 0x85, 0x00], .uint(5)),  // a padded number
            ([0x18, 0x05], [0x98, 0x00, 0x05], .uint(5)),  // a padded key
            ([0x08, 0x01], [0x08, 0x02], .bool(true)),  // a bool of 2
            ([0x2A, 0x01, 0x61], [0x2A, 0x81, 0x00, 0x61], .string("a")),  // a padded length
            ([0x48, 0x07], [0x48, 0x87, 0x80, 0x80, 0x80, 0x10], .enum(7)),  // an enum past 32 bits, cut
            ([0x21, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F], [0x21, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F], .double(1)),
            ([0x18] + Array(repeating: 0xFF, count: 9) + [0x01], [0x18] + Array(repeating: 0xFF, count: 9) + [0x01], .uint(.max)),
            ([0x10, 0x01], [0x10, 0x81, 0x80, 0x00], .int(-1)),  // zigzag, padded
        ]
        for (usual, other, value) in cases {
            let a = try Self.kept(Self.state([[0x08, 0x03, 0x12, UInt8(usual.count)] + usual]))
            let b = try Self.kept(Self.state([[0x08, 0x03, 0x12, UInt8(other.count)] + other]))
            #expect(a.attributes == [0x03] + usual, "\(usual)")
            #expect(b.attributes == a.attributes && b.values() == [AttributeID(3): value], "\(other)")
        }
        // A struct's fields in another order, and a list element given as an empty message or as null.
        let ordered = Value.struct([FieldID(1): .uint(1), FieldID(2): .list([.null])])
        var written: [UInt8] = []
        ordered.appendProto(to: &written)
        let fieldTwo: [UInt8] = [0x08, 0x02, 0x12, 0x04, 0x3A, 0x02, 0x0A, 0x00]  // id 2, list [empty message]
        let fieldOne: [UInt8] = [0x08, 0x01, 0x12, 0x02, 0x18, 0x01]  // id 1, uint 1
        let body: [UInt8] = [0x0A, UInt8(fieldTwo.count)] + fieldTwo + [0x0A, UInt8(fieldOne.count)] + fieldOne
        let other: [UInt8] = [0x42, UInt8(body.count)] + body
        let a = try Self.kept(Self.state([[0x08, 0x03, 0x12, UInt8(written.count)] + written]))
        let b = try Self.kept(Self.state([[0x08, 0x03, 0x12, UInt8(other.count)] + other]))
        #expect(b.values() == [AttributeID(3): ordered])
        #expect(a.attributes == b.attributes)
    }

    @Test("ids past one byte and values past 127 bytes are walked, merged and updated in place")
    func longEntries() throws {
        let long = String(repeating: "x", count: 300)
        let first = try Self.kept(Hearth_V1_TraitState.with {
            $0.traitID = 8
            $0.attributes = [
                .with { $0.id = 0xFFF8; $0.value = Value.string(long).proto },
                .with { $0.id = 0xFFFD; $0.value = Value.uint(1).proto },
            ]
        }.serializedBytes() as [UInt8])
        #expect(first.encodedAttributes().map(\.id) == [0xFFF8, 0xFFFD])
        #expect(first.values() == [AttributeID(0xFFF8): .string(long), AttributeID(0xFFFD): .uint(1)])
        var types = CompactTypes([SDKCompactTypesTests.type(1, 0x0101, primary: true, [first])])
        // The whole trait again with a value of the same length: written in place.
        let whole = try Self.kept(Hearth_V1_TraitState.with {
            $0.traitID = 8
            $0.attributes = [
                .with { $0.id = 0xFFF8; $0.value = Value.string(String(repeating: "y", count: 300)).proto },
                .with { $0.id = 0xFFFD; $0.value = Value.uint(2).proto },
            ]
        }.serializedBytes() as [UInt8])
        #expect(types.update(endpoint: 1, with: whole).isChanged)
        // One attribute alone: merged by id, the other kept.
        let one = try Self.kept(Hearth_V1_TraitState.with {
            $0.traitID = 8
            $0.attributes = [.with { $0.id = 0xFFFD; $0.value = Value.uint(300).proto }]
        }.serializedBytes() as [UInt8])
        #expect(types.update(endpoint: 1, with: one).isChanged)
        #expect(
            SDKCompactTypesTests.values(types, endpoint: 1, trait: 8)
                == [AttributeID(0xFFF8): .string(String(repeating: "y", count: 300)), AttributeID(0xFFFD): .uint(300)])
    }

    @Test("a change carrying the same attributes in another shape is no change")
    func repeatInAnotherShape() throws {
        let usual = try Self.kept(Self.state([[0x08, 0x03, 0x12, 0x02, 0x18, 0x05], [0x08, 0x04, 0x12, 0x02, 0x08, 0x01]]))
        var types = CompactTypes([SDKCompactTypesTests.type(1, 0x0101, primary: true, [usual])])
        let other = try Self.kept(Self.state([[0x12, 0x02, 0x18, 0x05, 0x08, 0x03], [0x08, 0x84, 0x00, 0x12, 0x02, 0x08, 0x01]]))
        #expect(!types.update(endpoint: 1, with: other).isChanged)
        // A merge by id keeps the untouched attribute's bytes and replaces the other's.
        let one = try Self.kept(Self.state([[0x08, 0x04, 0x12, 0x02, 0x08, 0x00]]))
        #expect(types.update(endpoint: 1, with: one).isChanged)
        #expect(SDKCompactTypesTests.values(types, endpoint: 1, trait: 8) == [AttributeID(3): .uint(5), AttributeID(4): .bool(false)])
    }
}

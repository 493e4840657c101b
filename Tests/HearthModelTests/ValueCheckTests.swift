import HearthModel
import HearthProto
import SwiftProtobuf
import Testing

/// `Value.check(protoBytes:)` and `checkIDAndValue` (what HearthSDK runs on every attribute it receives) refuse
/// exactly what the direct reader refuses, and take what it takes.
@Suite("Value check: the reader's verdict without building the value")
struct ValueCheckTests {
    /// Values of every kind, nested, and a value nested past the reader's depth limit.
    static let values: [Value] = {
        var deep = Value.uint(1)
        for _ in 0..<(Value.protoReaderDepthLimit + 1) { deep = .list([deep]) }
        return [
            .bool(true), .int(-5), .uint(300), .double(21.5), .string("Küche"), .string(""), .bytes([0, 1, 2]),
            .enum(4), .null, .list([.uint(1), .string("a"), .list([])]),
            .struct([1: .int(-1), 2: .struct([3: .string("x")]), 9: .list([.bool(false)])]), deep,
        ]
    }()

    private static func encoded(_ value: Value) throws -> [UInt8] { try value.proto.serializedBytes() }

    private static func verdicts(_ bytes: [UInt8]) -> (read: Bool, checked: Bool) {
        bytes.withUnsafeBytes { raw in
            ((try? Value(protoBytes: raw)) != nil, (try? Value.check(protoBytes: raw)) != nil)
        }
    }

    @Test("each value's bytes get the same verdict; the one nested too deep is refused by both")
    func sameVerdictOnValues() throws {
        for value in Self.values {
            let (read, checked) = Self.verdicts(try Self.encoded(value))
            #expect(read == checked, "\(value)")
        }
        let (read, checked) = Self.verdicts(try Self.encoded(Self.values.last!))
        #expect(!read && !checked)
    }

    @Test("lists and structs nested to the reader's depth limit: both take one level below it, both refuse it")
    func depthLimit() throws {
        func nested(_ levels: Int, inStruct: Bool) -> Value {
            var value = Value.uint(1)
            for _ in 0..<levels { value = inStruct ? .struct([1: value]) : .list([value]) }
            return value
        }
        for inStruct in [false, true] {
            let below = Self.verdicts(try Self.encoded(nested(Value.protoReaderDepthLimit - 1, inStruct: inStruct)))
            let at = Self.verdicts(try Self.encoded(nested(Value.protoReaderDepthLimit, inStruct: inStruct)))
            #expect(below.read && below.checked, "\(inStruct ? "structs" : "lists") one level below the limit")
            #expect(!at.read && !at.checked, "\(inStruct ? "structs" : "lists") at the limit")
        }
    }

    @Test("every byte of every value changed to each of several bytes, and every truncation: the same verdict")
    func sameVerdictOnDamagedBytes() throws {
        var refused = 0
        var cases = 0
        for value in Self.values.dropLast() {
            let bytes = try Self.encoded(value)
            var variants: [[UInt8]] = (0..<bytes.count).map { Array(bytes[..<$0]) }
            for index in bytes.indices {
                for replacement: UInt8 in [0x00, 0x02, 0x0A, 0x12, 0x3A, 0x42, 0x7F, 0x80, 0xC3, 0xFF] {
                    var damaged = bytes
                    damaged[index] = replacement
                    variants.append(damaged)
                }
            }
            for variant in variants {
                let (read, checked) = Self.verdicts(variant)
                #expect(read == checked, "\(variant): the reader \(read ? "takes" : "refuses") it")
                refused += read ? 0 : 1
                cases += 1
            }
        }
        #expect(refused > 0 && refused < cases, "the damaged bytes include both verdicts")
    }

    @Test("a field key padded past five bytes is refused by the reader and the check, as swift-protobuf refuses it")
    func overlongKey() {
        // Found by FuzzValueValidator (2026-11-29): field 101,455,913 as a fixed32, its key in six bytes.
        let bytes: [UInt8] = [205, 130, 131, 131, 131, 0, 0, 0, 0, 131]
        #expect((try? Hearth_V1_Value(serializedBytes: bytes)) == nil)
        #expect(Self.verdicts(bytes) == (read: false, checked: false))
        // The same field with its key in five bytes is an unknown field both skip.
        let canonical: [UInt8] = [205, 130, 131, 131, 3, 0, 0, 0, 131]
        #expect((try? Hearth_V1_Value(serializedBytes: canonical)) != nil)
        #expect(Self.verdicts(canonical) == (read: true, checked: true))
    }

    @Test("an attribute's id comes back; a value given twice, or invalid UTF-8, is refused as the reader refuses it")
    func idAndValue() throws {
        var attribute = Hearth_V1_Attribute()
        attribute.id = 77
        attribute.value = Value.string("ok").proto
        let bytes: [UInt8] = try attribute.serializedBytes()
        #expect(try bytes.withUnsafeBytes { try Value.checkIDAndValue($0) } == 77)
        let twice = bytes + [2 << 3 | 2, 2, 3 << 3, 1]  // a second value field: protobuf would merge them
        let badString: [UInt8] = [1 << 3, 5, 2 << 3 | 2, 3, 5 << 3 | 2, 1, 0xFF]
        for refused in [twice, badString] {
            #expect(throws: ProtoReader.Unsupported.self) { try refused.withUnsafeBytes { _ = try Value.idAndValue($0) } }
            #expect(throws: ProtoReader.Unsupported.self) { try refused.withUnsafeBytes { try Value.checkIDAndValue($0) } }
        }
    }
}

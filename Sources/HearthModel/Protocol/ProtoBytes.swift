/// Protobuf's binary encoding written straight from Hearth's own types, for the hot paths that would
/// otherwise build a tree of generated messages only to have swift-protobuf size and encode it (a report
/// leaving a driver). The bytes are exactly swift-protobuf's for the same message: fields in number order,
/// proto3 defaults left out except inside a oneof, minimal varints (`ProtoBytesTests` compares them).
///
/// A nested message is prefixed by its length. Either the size is computed before writing, or
/// (``appendDelimited(_:to:_:)``) the body is written first and its length put in front of it after;
/// nothing allocates but the output array.
package enum ProtoBytes {
    /// Wire types.
    package static let varint: UInt8 = 0
    package static let fixed64: UInt8 = 1
    package static let lengthDelimited: UInt8 = 2

    /// The bytes of `value` as a varint.
    @inline(__always)
    package static func varintSize(_ value: UInt64) -> Int {
        // 7 bits a byte; 0 takes one byte.
        (64 - value.leadingZeroBitCount + 6) / 7 + (value == 0 ? 1 : 0)
    }

    package static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// A field's key (number and wire type); Hearth's field numbers are all below 16, one byte.
    @inline(__always)
    package static func appendKey(_ field: UInt8, _ wireType: UInt8, to out: inout [UInt8]) {
        assert(field < 16, "field numbers from 16 on take a two-byte key")
        out.append(field << 3 | wireType)
    }

    /// The size of a length-delimited field of `length` bytes, key included.
    @inline(__always)
    package static func delimitedFieldSize(_ length: Int) -> Int {
        1 + varintSize(UInt64(length)) + length
    }

    /// The size of a varint field, key included; 0 for a proto3 default left out.
    @inline(__always)
    package static func varintFieldSize(_ value: UInt64) -> Int {
        value == 0 ? 0 : 1 + varintSize(value)
    }

    /// A varint field, left out when 0 (proto3).
    @inline(__always)
    package static func appendVarintField(_ field: UInt8, _ value: UInt64, to out: inout [UInt8]) {
        guard value != 0 else { return }
        appendKey(field, varint, to: &out)
        appendVarint(value, to: &out)
    }

    /// A length-delimited field's key and length; its `length` bytes follow.
    @inline(__always)
    package static func appendDelimitedHeader(_ field: UInt8, length: Int, to out: inout [UInt8]) {
        appendKey(field, lengthDelimited, to: &out)
        appendVarint(UInt64(length), to: &out)
    }

    /// Appends length-delimited field `field` whose body `body` writes, in one pass: one byte is set aside
    /// for the length, and once the body is written its length goes there. A body of 128 bytes or more needs
    /// a longer varint, and moves up by the extra bytes: one copy of bytes just written, instead of a pass
    /// computing every nested size beforehand (a fifth of a hub's CPU sending a snapshot).
    @inline(__always)
    package static func appendDelimited(_ field: UInt8, to out: inout [UInt8], _ body: (inout [UInt8]) -> Void) {
        appendKey(field, lengthDelimited, to: &out)
        let start = out.count
        out.append(0)
        body(&out)
        let length = out.count - start - 1
        if length < 0x80 {
            out[start] = UInt8(truncatingIfNeeded: length)
        } else {
            insertLength(length, at: start, in: &out)
        }
    }

    /// Writes `length` as a varint at `start`, moving the `length` bytes after the one byte set aside there
    /// up by the varint's extra bytes.
    @inline(never)
    private static func insertLength(_ length: Int, at start: Int, in out: inout [UInt8]) {
        let size = varintSize(UInt64(length))
        out.append(contentsOf: repeatElement(0, count: size - 1))
        out.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!
            // The regions overlap; `copyMemory` moves as memmove does.
            (base + start + size).copyMemory(from: base + start + 1, byteCount: length)
            var value = UInt64(length)
            var at = start
            while value >= 0x80 {
                raw[at] = UInt8(truncatingIfNeeded: value) | 0x80
                value >>= 7
                at += 1
            }
            raw[at] = UInt8(value)
        }
    }

    /// The size of a string field, key included; 0 for an empty string left out.
    @inline(__always)
    package static func stringFieldSize(_ value: String) -> Int {
        let count = value.utf8.count
        return count == 0 ? 0 : delimitedFieldSize(count)
    }

    /// A string field, left out when empty (proto3).
    package static func appendStringField(_ field: UInt8, _ value: String, to out: inout [UInt8]) {
        let count = value.utf8.count
        guard count != 0 else { return }
        appendDelimitedHeader(field, length: count, to: &out)
        out.append(contentsOf: value.utf8)
    }
}

extension Value {
    /// The size of this value as a `hearth.v1.Value` message (its body, without a length prefix).
    package var protoSize: Int {
        switch self {
        case .bool: return 2
        case .int(let v): return 1 + ProtoBytes.varintSize(Self.zigZag(v))
        case .uint(let v): return 1 + ProtoBytes.varintSize(v)
        case .double: return 9
        case .string(let v): return ProtoBytes.delimitedFieldSize(v.utf8.count)
        case .bytes(let v): return ProtoBytes.delimitedFieldSize(v.count)
        case .list(let values): return ProtoBytes.delimitedFieldSize(Self.listBodySize(values))
        case .struct(let fields): return ProtoBytes.delimitedFieldSize(Self.structBodySize(fields))
        case .enum(let v): return 1 + ProtoBytes.varintSize(UInt64(v))
        case .null: return 2
        }
    }

    /// Appends this value as a `hearth.v1.Value` message body. A oneof member is written even when it holds
    /// its type's default, as protobuf requires.
    package func appendProto(to out: inout [UInt8]) {
        switch self {
        case .bool(let v):
            ProtoBytes.appendKey(1, ProtoBytes.varint, to: &out)
            out.append(v ? 1 : 0)
        case .int(let v):
            ProtoBytes.appendKey(2, ProtoBytes.varint, to: &out)
            ProtoBytes.appendVarint(Self.zigZag(v), to: &out)
        case .uint(let v):
            ProtoBytes.appendKey(3, ProtoBytes.varint, to: &out)
            ProtoBytes.appendVarint(v, to: &out)
        case .double(let v):
            ProtoBytes.appendKey(4, ProtoBytes.fixed64, to: &out)
            withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        case .string(let v):
            // The oneof's member is written even when empty, so not through appendStringField.
            ProtoBytes.appendDelimitedHeader(5, length: v.utf8.count, to: &out)
            out.append(contentsOf: v.utf8)
        case .bytes(let v):
            ProtoBytes.appendDelimitedHeader(6, length: v.count, to: &out)
            out.append(contentsOf: v)
        case .list(let values):
            ProtoBytes.appendDelimited(7, to: &out) { out in
                for value in values { ProtoBytes.appendDelimited(1, to: &out) { value.appendProto(to: &$0) } }
            }
        case .struct(let fields):
            ProtoBytes.appendDelimited(8, to: &out) { Self.appendIDAndValueFields(1, fields, to: &$0) }
        case .enum(let v):
            ProtoBytes.appendKey(9, ProtoBytes.varint, to: &out)
            ProtoBytes.appendVarint(UInt64(v), to: &out)
        case .null:
            ProtoBytes.appendKey(10, ProtoBytes.varint, to: &out)
            out.append(0)
        }
    }

    /// The size of a field holding a message `{ uint32 id = 1; Value value = 2; }` (`Attribute`, `Field`),
    /// key and length included.
    package static func idAndValueFieldSize(_ id: UInt32, _ value: Value) -> Int {
        ProtoBytes.delimitedFieldSize(ProtoBytes.varintFieldSize(UInt64(id)) + ProtoBytes.delimitedFieldSize(value.protoSize))
    }

    /// Appends field `field` holding a message `{ uint32 id = 1; Value value = 2; }` (`Attribute`, `Field`).
    package static func appendIDAndValueField(_ field: UInt8, _ id: UInt32, _ value: Value, to out: inout [UInt8]) {
        ProtoBytes.appendDelimited(field, to: &out) { out in
            ProtoBytes.appendVarintField(1, UInt64(id), to: &out)
            ProtoBytes.appendDelimited(2, to: &out) { value.appendProto(to: &$0) }
        }
    }

    /// The size of a repeated `Attribute` field holding `attributes`, keys and lengths included.
    package static func attributesFieldSize(_ attributes: [AttributeID: Value]) -> Int {
        attributes.reduce(0) { $0 + idAndValueFieldSize($1.key.rawValue, $1.value) }
    }

    /// Appends `attributes` as repeated `Attribute` field `field`, in id order as swift-protobuf's callers
    /// (`protoAttributes`) put them.
    package static func appendAttributesField(_ field: UInt8, _ attributes: [AttributeID: Value], to out: inout [UInt8]) {
        appendIDAndValueFields(field, attributes, to: &out)
    }

    /// Appends each entry of `values` as field `field` holding `{ id, value }`, in id order. One entry (most
    /// traits' reports: OnOff, a level, a temperature) is written without a sorted copy of the dictionary.
    private static func appendIDAndValueFields<ID: NumericIdentifier>(
        _ field: UInt8, _ values: [ID: Value], to out: inout [UInt8]
    ) {
        guard values.count > 1 else {
            for (id, value) in values { appendIDAndValueField(field, id.rawValue, value, to: &out) }
            return
        }
        // The ids and the entries' positions are sorted in a buffer on the stack, and each value read from
        // its position: `sorted()` copied every entry into a new array, retaining each value, sorted the copies
        // and released them (about a quarter of the hub's CPU while it sent a snapshot).
        withUnsafeTemporaryAllocation(of: (id: UInt32, index: [ID: Value].Index).self, capacity: values.count) { order in
            var count = 0
            var index = values.startIndex
            while index != values.endIndex {
                order.initializeElement(at: count, to: (values.keys[index].rawValue, index))
                count += 1
                values.formIndex(after: &index)
            }
            var sorted = UnsafeMutableBufferPointer(rebasing: order[..<count])
            sorted.sort { $0.id < $1.id }
            for (id, index) in sorted { appendIDAndValueField(field, id, values.values[index], to: &out) }
            sorted.deinitialize()  // ids and native dictionary indices: nothing to release
        }
    }

    private static func listBodySize(_ values: [Value]) -> Int {
        values.reduce(0) { $0 + ProtoBytes.delimitedFieldSize($1.protoSize) }
    }

    private static func structBodySize(_ fields: [FieldID: Value]) -> Int {
        fields.reduce(0) { $0 + idAndValueFieldSize($1.key.rawValue, $1.value) }
    }

    @inline(__always)
    private static func zigZag(_ v: Int64) -> UInt64 {
        UInt64(bitPattern: (v << 1) ^ (v >> 63))
    }
}

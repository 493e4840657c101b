import HearthModel
import HearthProto
import SwiftProtobuf

/// A trait's attributes as the cache keeps them: for each, its id as a varint, then its value as the one
/// field of a `hearth.v1.Value` message (key and payload, as the hub wrote it). A value given as an empty
/// message (null) is kept as the `null_value` field, as ``HearthModel/Value`` writes null.
///
/// Kept as a `TraitState`'s field 2 entries, an attribute carried five bytes beside its id and value: the
/// entry's key and length, the id's key, the value's key and length. That was about 170 of a cached
/// device's 1,040 bytes (34 attributes), a sixth of the memory ten clients joining a 100,000-device home
/// have the kernel zero. A value's field reads back as a `Value` message on its own; its length follows from
/// its wire type.
///
/// Two equal states are kept byte for byte equal (the cache takes a repeated state for no change): the id is
/// written here, and a value whose message holds more than its one field (a member given twice, unknown
/// fields) is written anew from what it reads as.
enum CompactAttributes {
    /// Appends attribute `id` whose value is the `Value` message body `value`.
    static func append(id: UInt32, value: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        ProtoBytes.appendVarint(UInt64(id), to: &bytes)
        if value.isEmpty {
            Value.null.appendProto(to: &bytes)
        } else if let field = onlyField(value) {
            bytes.append(contentsOf: field)
        } else if let read = try? Value(protoBytes: value) {
            read.appendProto(to: &bytes)
        } else {
            // Nested past the reader's depth: swift-protobuf reads and writes it (one field, or none).
            var proto = (try? Hearth_V1_Value(serializedBytes: Array(value))) ?? Hearth_V1_Value()
            proto.unknownFields = UnknownStorage()
            let written: [UInt8] = (try? proto.serializedBytes()) ?? []
            if written.isEmpty { Value.null.appendProto(to: &bytes) } else { bytes.append(contentsOf: written) }
        }
    }

    /// The message's bytes when they are one whole field, else nil.
    private static func onlyField(_ message: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var reader = ProtoReader(message)
        guard (try? skipField(&reader)) == true, reader.isAtEnd else { return nil }
        return message
    }

    /// Skips one field; false at the end.
    private static func skipField(_ reader: inout ProtoReader) throws(ProtoReader.Unsupported) -> Bool {
        guard let (_, wireType) = try reader.nextField() else { return false }
        try reader.skip(wireType: wireType)
        return true
    }

    /// One attribute: its id, and its value's one field at `value` in the buffer read, which ends the
    /// attribute.
    struct Entry {
        var id: UInt32
        var start: Int
        var value: Range<Int>
    }

    /// Each attribute of `bytes`, in order. The bytes were written by ``append(id:value:to:)``: anything
    /// else ends the walk.
    static func entries(_ bytes: UnsafeRawBufferPointer) -> [Entry] {
        var out: [Entry] = []
        var position = 0
        while let entry = entry(bytes, at: position) {
            out.append(entry)
            position = entry.value.upperBound
        }
        return out
    }

    /// The attribute starting at `position`, or nil at the end.
    static func entry(_ bytes: UnsafeRawBufferPointer, at position: Int) -> Entry? {
        guard position < bytes.count, let base = bytes.baseAddress else { return nil }
        var reader = ProtoReader(UnsafeRawBufferPointer(start: base + position, count: bytes.count - position))
        guard let id = try? reader.varint(), id <= UInt64(UInt32.max) else { return nil }
        let valueStart = reader.position - base
        guard (try? skipField(&reader)) == true else { return nil }
        return Entry(id: UInt32(id), start: position, value: valueStart..<(reader.position - base))
    }

    /// The value kept at `field` (one field of a `Value` message): read directly, or by swift-protobuf when
    /// the reader leaves it (nested deeper than its limit); null if neither reads it.
    static func value(_ field: UnsafeRawBufferPointer) -> Value {
        if let direct = try? Value(protoBytes: field) { return direct }
        guard let proto = try? Hearth_V1_Value(serializedBytes: Array(field)) else { return .null }
        return Value(proto: proto)
    }
}

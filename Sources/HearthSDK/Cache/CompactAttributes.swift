import HearthModel
import HearthProto
import SwiftProtobuf

/// A trait's attributes as the cache keeps them: for each, its id as a varint, then its value as the one
/// field of a `hearth.v1.Value` message, exactly as ``HearthModel/Value`` writes it (`appendProto`).
///
/// Kept as a `TraitState`'s field 2 entries, an attribute carried five bytes beside its id and value: the
/// entry's key and length, the id's key, the value's key and length. That was about 170 of a cached
/// device's 1,040 bytes (34 attributes), a sixth of the memory ten clients joining a 100,000-device home
/// have the kernel zero. A value's field reads back as a `Value` message on its own; its length follows from
/// its wire type.
///
/// The cache takes a repeated state for no change by comparing bytes, so a value is kept in one form
/// whatever shape protobuf allowed it on the wire: a scalar already written as `appendProto` writes it (the
/// hub's, nearly always) is copied; anything else (a padded number or key, a bool of 2, a oneof member given
/// twice, unknown fields, an empty message, and every list or struct, whose contents may come in any order)
/// is written anew from the value it reads as.
enum CompactAttributes {
    /// Appends attribute `id` whose value is the `Value` message body `value`.
    static func append(id: UInt32, value: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        ProtoBytes.appendVarint(UInt64(id), to: &bytes)
        if isWrittenAsValueWrites(value) {
            bytes.append(contentsOf: value)
        } else {
            self.value(value).appendProto(to: &bytes)
        }
    }

    /// Whether `message` is one scalar field byte for byte as `Value.appendProto` writes it: a one-byte key
    /// of fields 1 to 6, 9 or 10 with its wire type, numbers and lengths in their shortest form, a bool 0
    /// or 1, an enum within 32 bits, null 0.
    static func isWrittenAsValueWrites(_ message: UnsafeRawBufferPointer) -> Bool {
        guard let key = message.first, let base = message.baseAddress else { return false }
        var reader = ProtoReader(UnsafeRawBufferPointer(rebasing: message[1...]))
        /// The next varint when written in its shortest form (a tenth byte, if any, holding only bit 63).
        func shortest() -> UInt64? {
            let start = reader.position
            guard let value = try? reader.varint() else { return nil }
            let size = reader.position - start
            guard size == ProtoBytes.varintSize(value), size < 10 || reader.position.load(fromByteOffset: -1, as: UInt8.self) == 1
            else { return nil }
            return value
        }
        let rest = { message.count - (reader.position - base) }
        switch key {
        case 0x08: return shortest().map { $0 <= 1 && rest() == 0 } ?? false  // bool
        case 0x10, 0x18: return shortest() != nil && rest() == 0  // int, uint
        case 0x21: return message.count == 9  // double
        case 0x2A, 0x32: return shortest().map { $0 == UInt64(rest()) } ?? false  // string, bytes
        case 0x48: return shortest().map { $0 <= UInt64(UInt32.max) && rest() == 0 } ?? false  // enum
        case 0x50: return shortest() == 0 && rest() == 0  // null
        default: return false
        }
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

    /// A `Value` message body (a kept value's one field, or a value as it came): read directly, or by
    /// swift-protobuf when the reader leaves it (nested deeper than its limit); null if neither reads it.
    static func value(_ message: UnsafeRawBufferPointer) -> Value {
        if let direct = try? Value(protoBytes: message) { return direct }
        guard let proto = try? Hearth_V1_Value(serializedBytes: Array(message)) else { return .null }
        return Value(proto: proto)
    }
}

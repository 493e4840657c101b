package import SwiftProtobuf
package import HearthProto

/// Protobuf's binary encoding read straight into Hearth's own types, for a hub's cold start: decoding a
/// million stored devices through swift-protobuf's generated messages (generic decoders, a message tree per
/// device, then a conversion) was the largest part of loading them.
///
/// It reads what ``ProtoBytes`` and swift-protobuf write. Anything it does not expect (a wrong wire type, a
/// singular message field given twice, which protobuf would merge, invalid UTF-8, a truncated field)
/// throws ``Unsupported``; callers then decode the same bytes with swift-protobuf, whose answer (a value or
/// an error) stands. Unknown fields are skipped, as swift-protobuf's conversions ignore them.
package struct ProtoReader {
    /// The bytes are not in the shape this reader handles; decode them with swift-protobuf instead.
    package struct Unsupported: Error {
        package init() {}
    }

    /// Where the next read starts.
    package private(set) var position: UnsafeRawPointer
    private let end: UnsafeRawPointer

    /// Reads `bytes`, which must outlive the reader.
    package init(_ bytes: UnsafeRawBufferPointer) {
        let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        position = base
        end = base + bytes.count
    }

    package var isAtEnd: Bool { position >= end }

    /// The next field's number and wire type, or nil at the end.
    package mutating func nextField() throws(Unsupported) -> (number: UInt64, wireType: UInt8)? {
        guard position < end else { return nil }
        let start = position
        let key = try varint()
        // Field numbers run from 1 to 2^29 - 1 (a key fits 32 bits); swift-protobuf refuses others. A key
        // written in more than five bytes (padded with continuation bytes) is refused too: protobuf decoders
        // disagree about it (the fuzzer found one that swift-protobuf refuses), so it is left to them.
        guard key >> 3 != 0, key <= UInt64(UInt32.max), position - start <= 5 else { throw Unsupported() }
        return (key >> 3, UInt8(key & 7))
    }

    package mutating func varint() throws(Unsupported) -> UInt64 {
        // Most varints (field keys, lengths, small numbers) are one byte: read without the loop, this path
        // is small enough to be inlined into the callers in this module (`nextField`, the checks).
        if position < end {
            let byte = position.load(as: UInt8.self)
            if byte < 0x80 {
                position += 1
                return UInt64(byte)
            }
        }
        return try longVarint()
    }

    /// A varint of more than one byte (or a truncated one).
    private mutating func longVarint() throws(Unsupported) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < end {
            let byte = position.load(as: UInt8.self)
            position += 1
            if shift == 63, byte > 1 { throw Unsupported() }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { throw Unsupported() }
        }
        throw Unsupported()
    }

    /// A varint field's value, checking its wire type.
    package mutating func varint(wireType: UInt8) throws(Unsupported) -> UInt64 {
        guard wireType == ProtoBytes.varint else { throw Unsupported() }
        return try varint()
    }

    /// A fixed64 field's value.
    package mutating func fixed64(wireType: UInt8) throws(Unsupported) -> UInt64 {
        guard wireType == ProtoBytes.fixed64, end - position >= 8 else { throw Unsupported() }
        let value = position.loadUnaligned(as: UInt64.self)
        position += 8
        return UInt64(littleEndian: value)
    }

    /// A length-delimited field's bytes, valid as long as the reader's.
    package mutating func delimited(wireType: UInt8) throws(Unsupported) -> UnsafeRawBufferPointer {
        guard wireType == ProtoBytes.lengthDelimited else { throw Unsupported() }
        let length = try varint()
        guard length <= UInt64(end - position) else { throw Unsupported() }
        let bytes = UnsafeRawBufferPointer(start: position, count: Int(length))
        position += Int(length)
        return bytes
    }

    /// A string field's value; invalid UTF-8 throws, as swift-protobuf does.
    package mutating func string(wireType: UInt8) throws(Unsupported) -> String {
        let bytes = try delimited(wireType: wireType).assumingMemoryBound(to: UInt8.self)
        // ASCII needs no validation, and `String(decoding:as:)` is specialized: the standard library's
        // validating initializer is generic over the encoding and, unspecialized, looked up type metadata at
        // run time on every call (13 % of ten clients joining at once, with the enum reader below).
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let string = String(validating: bytes, as: UTF8.self) else { throw Unsupported() }
        return string
    }

    /// An enum field's value: swift-protobuf reads an enum as a 32-bit signed integer.
    package mutating func enumValue<E: SwiftProtobuf.Enum>(wireType: UInt8) throws(Unsupported) -> E
    where E.RawValue == Int {
        let raw = Int(Int32(truncatingIfNeeded: try varint(wireType: wireType)))
        // Proto3 enums are open (an unknown number is `UNRECOGNIZED`): this never falls back.
        return E(rawValue: raw) ?? E()
    }

    /// A trait's or device's connectivity, read without the generic path: called from another module, the
    /// generic reader ran unspecialized and looked up the enum's metadata at run time for every trait.
    package mutating func connectivity(wireType: UInt8) throws(Unsupported) -> Hearth_V1_ConnectivityState {
        try enumValue(wireType: wireType)
    }

    /// A trait's or device's data-source locality (see ``connectivity(wireType:)``).
    package mutating func locality(wireType: UInt8) throws(Unsupported) -> Hearth_V1_DataSourceLocality {
        try enumValue(wireType: wireType)
    }

    /// The body of message field `number` of the message `bytes`, or nil when it is absent; other fields are
    /// skipped. Throws when the field comes twice (protobuf would merge the two) or when a field in
    /// `otherMembers` occurs (another member of the same oneof, which the caller does not read).
    package static func onlyMessageField(
        _ number: UInt64, in bytes: UnsafeRawBufferPointer, otherMembers: ClosedRange<UInt64>? = nil
    ) throws(Unsupported) -> UnsafeRawBufferPointer? {
        var reader = ProtoReader(bytes)
        var found: UnsafeRawBufferPointer?
        while let (field, wireType) = try reader.nextField() {
            if field == number {
                guard found == nil else { throw Unsupported() }
                found = try reader.delimited(wireType: wireType)
            } else if otherMembers?.contains(field) == true {
                throw Unsupported()
            } else {
                try reader.skip(wireType: wireType)
            }
        }
        return found
    }

    /// Skips a field this reader does not use.
    package mutating func skip(wireType: UInt8) throws(Unsupported) {
        switch wireType {
        case ProtoBytes.varint: _ = try varint()
        case ProtoBytes.fixed64: _ = try fixed64(wireType: wireType)
        case ProtoBytes.lengthDelimited: _ = try delimited(wireType: wireType)
        case 5:
            guard end - position >= 4 else { throw Unsupported() }
            position += 4
        default: throw Unsupported()  // groups, and wire types that do not exist
        }
    }
}

extension Value {
    /// Values nested deeper than this (lists and structs inside each other) are left to swift-protobuf, whose
    /// own depth limit then applies: the reader recurses once per level.
    package static let protoReaderDepthLimit = 32

    /// Reads a `hearth.v1.Value` message body, as `Value(proto:)` would convert swift-protobuf's decoding.
    package init(protoBytes bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
        try self.init(protoBytes: bytes, depth: 0)
    }

    private init(protoBytes bytes: UnsafeRawBufferPointer, depth: Int) throws(ProtoReader.Unsupported) {
        guard depth < Self.protoReaderDepthLimit else { throw ProtoReader.Unsupported() }
        var reader = ProtoReader(bytes)
        var value = Value.null
        var sawMessage = false
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: value = .bool(try reader.varint(wireType: wireType) != 0)
            case 2:
                let raw = try reader.varint(wireType: wireType)
                value = .int(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
            case 3: value = .uint(try reader.varint(wireType: wireType))
            case 4: value = .double(Double(bitPattern: try reader.fixed64(wireType: wireType)))
            case 5: value = .string(try reader.string(wireType: wireType))
            case 6: value = .bytes(Array(try reader.delimited(wireType: wireType)))
            case 7, 8:
                // A message member given twice is merged by protobuf; leave that to swift-protobuf.
                guard !sawMessage else { throw ProtoReader.Unsupported() }
                sawMessage = true
                let body = try reader.delimited(wireType: wireType)
                value =
                    number == 7
                    ? .list(try Self.list(body, depth: depth + 1))
                    : .struct(try Self.idAndValues(body, depth: depth + 1))
            case 9: value = .enum(UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType)))
            case 10:
                _ = try reader.varint(wireType: wireType)
                value = .null
            default: try reader.skip(wireType: wireType)
            }
        }
        self = value
    }

    /// A `ListValue` body's values.
    private static func list(_ bytes: UnsafeRawBufferPointer, depth: Int) throws(ProtoReader.Unsupported) -> [Value] {
        var reader = ProtoReader(bytes)
        var values: [Value] = []
        while let (number, wireType) = try reader.nextField() {
            guard number == 1 else {
                try reader.skip(wireType: wireType)
                continue
            }
            values.append(try Value(protoBytes: reader.delimited(wireType: wireType), depth: depth))
        }
        return values
    }

    /// A `StructValue` body's fields (repeated field 1 of `{ uint32 id = 1; Value value = 2; }`) by id; a
    /// later duplicate id wins.
    private static func idAndValues(
        _ bytes: UnsafeRawBufferPointer, depth: Int
    ) throws(ProtoReader.Unsupported) -> [FieldID: Value] {
        var reader = ProtoReader(bytes)
        var out: [FieldID: Value] = [:]
        while let (number, wireType) = try reader.nextField() {
            guard number == 1 else {
                try reader.skip(wireType: wireType)
                continue
            }
            let (id, value) = try idAndValue(reader.delimited(wireType: wireType), depth: depth)
            out[FieldID(id)] = value
        }
        return out
    }

    /// One message `{ uint32 id = 1; Value value = 2; }` (`Attribute`, `Field`); a missing value is null.
    package static func idAndValue(
        _ bytes: UnsafeRawBufferPointer, depth: Int = 0
    ) throws(ProtoReader.Unsupported) -> (UInt32, Value) {
        var reader = ProtoReader(bytes)
        var id: UInt32 = 0
        var value: Value?
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: id = UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType))
            case 2:
                guard value == nil else { throw ProtoReader.Unsupported() }
                value = try Value(protoBytes: reader.delimited(wireType: wireType), depth: depth)
            default: try reader.skip(wireType: wireType)
            }
        }
        return (id, value ?? .null)
    }
}

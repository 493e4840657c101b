extension Value {
    /// Checks a `hearth.v1.Value` message body as ``init(protoBytes:)`` reads it, without building the value:
    /// throws exactly when that initializer throws.
    ///
    /// A client keeps attributes encoded (HearthSDK's cache) and needs only to know that the reader will take
    /// them later; building each value on arrival to throw it away was about a tenth of a client listing a
    /// large home.
    package static func check(protoBytes bytes: UnsafeRawBufferPointer) throws(ProtoReader.Unsupported) {
        try check(protoBytes: bytes, depth: 0)
    }

    /// Checks one message `{ uint32 id = 1; Value value = 2; }` as ``idAndValue(_:depth:)`` reads it, without
    /// building the value; returns the id.
    @discardableResult
    package static func checkIDAndValue(
        _ bytes: UnsafeRawBufferPointer, depth: Int = 0
    ) throws(ProtoReader.Unsupported) -> UInt32 {
        try checkedIDAndValue(bytes, depth: depth).id
    }

    /// Checks one message `{ uint32 id = 1; Value value = 2; }` as ``checkIDAndValue(_:depth:)`` does; returns
    /// the id and the value's message body (empty when the value is absent).
    package static func checkedIDAndValue(
        _ bytes: UnsafeRawBufferPointer, depth: Int = 0
    ) throws(ProtoReader.Unsupported) -> (id: UInt32, value: UnsafeRawBufferPointer) {
        var reader = ProtoReader(bytes)
        var id: UInt32 = 0
        var value: UnsafeRawBufferPointer?
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1: id = UInt32(truncatingIfNeeded: try reader.varint(wireType: wireType))
            case 2:
                guard value == nil else { throw ProtoReader.Unsupported() }
                let body = try reader.delimited(wireType: wireType)
                try check(protoBytes: body, depth: depth)
                value = body
            default: try reader.skip(wireType: wireType)
            }
        }
        return (id, value ?? UnsafeRawBufferPointer(start: nil, count: 0))
    }

    // The same walk as `init(protoBytes:depth:)`, `list` and `idAndValues`, field by field, with nothing kept.
    private static func check(protoBytes bytes: UnsafeRawBufferPointer, depth: Int) throws(ProtoReader.Unsupported) {
        guard depth < protoReaderDepthLimit else { throw ProtoReader.Unsupported() }
        var reader = ProtoReader(bytes)
        var sawMessage = false
        while let (number, wireType) = try reader.nextField() {
            switch number {
            case 1, 2, 3, 9, 10: _ = try reader.varint(wireType: wireType)
            case 4: _ = try reader.fixed64(wireType: wireType)
            case 5: try reader.checkString(wireType: wireType)
            case 6: _ = try reader.delimited(wireType: wireType)
            case 7, 8:
                guard !sawMessage else { throw ProtoReader.Unsupported() }
                sawMessage = true
                var body = ProtoReader(try reader.delimited(wireType: wireType))
                while let (field, fieldWireType) = try body.nextField() {
                    guard field == 1 else {
                        try body.skip(wireType: fieldWireType)
                        continue
                    }
                    let element = try body.delimited(wireType: fieldWireType)
                    if number == 7 {
                        try check(protoBytes: element, depth: depth + 1)
                    } else {
                        try checkIDAndValue(element, depth: depth + 1)
                    }
                }
            default: try reader.skip(wireType: wireType)
            }
        }
    }
}

extension ProtoReader {
    /// Checks a string field as ``string(wireType:)`` reads it (its wire type and UTF-8), without building it.
    package mutating func checkString(wireType: UInt8) throws(Unsupported) {
        let bytes = try delimited(wireType: wireType).assumingMemoryBound(to: UInt8.self)
        if bytes.allSatisfy({ $0 < 0x80 }) { return }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw Unsupported() }
    }
}

import HearthProto
import SwiftProtobuf

/// What a subscriber needs from one serialized `hearth.v1.WatchResponse`: how many changes it holds and
/// its marks.
///
/// ``init(scanning:)`` walks only the top-level fields (a key and a length per change, no decoding of the
/// changes themselves): the least work a real client does before handing the bytes on.
/// ``init(decoding:)`` decodes the whole message with SwiftProtobuf, as the client library does.
struct WatchResponseScan: Equatable {
    var changes = 0
    var revision: UInt64 = 0
    var synced = false
    var relist = false

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    init(scanning bytes: [UInt8]) throws {
        var index = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count, shift < 64 {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            throw Malformed(description: "truncated varint at byte \(index)")
        }
        while index < bytes.count {
            let key = try varint()
            let field = key >> 3
            switch key & 7 {
            case 0:
                let value = try varint()
                if field == 2 { revision = value }
                if field == 3 { synced = value != 0 }
            case 2:
                let length = try varint()
                guard length <= UInt64(bytes.count - index) else {
                    throw Malformed(description: "field \(field) runs past the end")
                }
                index += Int(length)
                if field == 1 { changes += 1 }
                if field == 4 { relist = true }
            default:
                throw Malformed(description: "unexpected wire type \(key & 7) for field \(field)")
            }
        }
    }

    init(decoding bytes: [UInt8]) throws {
        let response = try Hearth_V1_WatchResponse(serializedBytes: bytes)
        changes = response.changes.count
        revision = response.revision
        synced = response.synced
        relist = response.hasRelist
    }
}

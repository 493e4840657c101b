import HearthModel
import HearthProto
import SwiftProtobuf
import Testing

/// `ProtoReader` reads string values as swift-protobuf does: ASCII on its fast path, other valid UTF-8 through
/// the validating one, invalid UTF-8 refused (it is then left to swift-protobuf, which refuses it too).
@Suite("ProtoReader: strings and enums")
struct ProtoReaderStringTests {
    /// A `Value` message holding string field 5 with these exact bytes.
    private static func stringValue(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [5 << 3 | 2]
        ProtoBytes.appendVarint(UInt64(bytes.count), to: &out)
        return out + bytes
    }

    @Test("ASCII, accented, CJK, emoji and empty strings read as swift-protobuf reads them",
          arguments: ["", "Lamp", "load-1/light-123", "Küche", "客厅", "🛋️ Sofa", String(repeating: "é", count: 300)])
    func valid(_ text: String) throws {
        let bytes = Self.stringValue(Array(text.utf8))
        let read = try bytes.withUnsafeBytes { try Value(protoBytes: $0) }
        #expect(read == .string(text))
        #expect(read == Value(proto: try Hearth_V1_Value(serializedBytes: bytes)))
    }

    @Test("invalid UTF-8 is refused, like swift-protobuf refuses it",
          arguments: [[0xFF], [0xC3], [0x41, 0xC3, 0x28], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] as [[UInt8]])
    func invalid(_ raw: [UInt8]) {
        let bytes = Self.stringValue(raw)
        #expect(throws: ProtoReader.Unsupported.self) { _ = try bytes.withUnsafeBytes { try Value(protoBytes: $0) } }
        #expect(throws: (any Error).self) { _ = try Hearth_V1_Value(serializedBytes: bytes) }
    }

    /// Runs `body` on a reader of `bytes`.
    private static func read<T>(_ bytes: [UInt8], _ body: (inout ProtoReader) throws -> T) throws -> T {
        try bytes.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer)
            return try body(&reader)
        }
    }

    @Test("connectivity and locality: known numbers, and an unknown one kept as swift-protobuf keeps it")
    func enums() throws {
        for raw: UInt64 in [0, 1, 2, 3, 77] {
            var bytes: [UInt8] = []
            ProtoBytes.appendVarint(raw, to: &bytes)
            let connectivity = try Self.read(bytes) { reader in try reader.connectivity(wireType: 0) }
            let locality = try Self.read(bytes) { reader in try reader.locality(wireType: 0) }
            #expect(connectivity == Hearth_V1_ConnectivityState(rawValue: Int(raw)))
            #expect(locality == Hearth_V1_DataSourceLocality(rawValue: Int(raw)))
        }
    }
}

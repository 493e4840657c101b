import Foundation
import HearthModel
import Testing

@Suite("Value")
struct ValueTests {
    static let samples: [Value] = [
        .bool(true), .int(-27315), .uint(UInt64.max), .double(0.25), .string("naïve ☕"), .bytes([0, 255, 7]),
        .list([.uint(1), .uint(2)]), .struct([0: .bool(false), 3: .list([.null])]), .enum(3), .null,
        .struct([:]), .list([]),
    ]

    @Test("round-trips through JSON", arguments: samples)
    func jsonRoundTrip(value: Value) throws {
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(Value.self, from: data) == value)
    }

    @Test("encodes structs with decimal field keys")
    func structEncoding() throws {
        let data = try JSONEncoder().encode(Value.struct([2: .uint(5)]))
        #expect(String(decoding: data, as: UTF8.self) == #"{"struct":{"2":{"uint":5}}}"#)
    }

    @Test("refuses objects with two kinds")
    func refusesAmbiguous() {
        let json = Data(#"{"bool":true,"uint":1}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Value.self, from: json) }
    }

    @Test("value types parse and spell back", arguments: [
        "bool", "int16", "uint64", "double", "string", "bytes", "enum:FanModeEnum", "bitmap:RockBitmap",
        "struct:ViewportStruct", "list:uint32", "list:struct:TransportConfigurationStruct",
    ])
    func valueTypeSpelling(spelling: String) {
        #expect(ValueType(spelling: spelling)?.spelling == spelling)
    }

    @Test("malformed type spellings are refused", arguments: ["int7", "list:", "enum:", "map:x", "uint"])
    func badSpelling(spelling: String) {
        #expect(ValueType(spelling: spelling) == nil)
    }

    @Test("connectivity aggregates as the API describes")
    func aggregate() {
        let online = SourceConnectivity(connectivityState: .online, dataSourceLocality: .local)
        let offlineCloud = SourceConnectivity(connectivityState: .offline, dataSourceLocality: .remote)
        let mixed = SourceConnectivity.aggregate([online, offlineCloud])
        #expect(mixed == SourceConnectivity(connectivityState: .partiallyOnline, dataSourceLocality: .mixed))
        #expect(SourceConnectivity.aggregate([online, online, .unknown]) == online)
        #expect(SourceConnectivity.aggregate([SourceConnectivity]()) == .unknown)
    }
}

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

    @Test("the one-pass aggregate agrees with the rule on sets, for every list of up to three parts")
    func aggregateMatchesRule() {
        // The rule as the API states it: the distinct known values; none, one, or several.
        func rule(_ parts: [SourceConnectivity]) -> SourceConnectivity {
            let states = Set(parts.map(\.connectivityState)).subtracting([.unknown])
            let localities = Set(parts.map(\.dataSourceLocality)).subtracting([.unspecified])
            return SourceConnectivity(
                connectivityState: states.count > 1 ? .partiallyOnline : states.first ?? .unknown,
                dataSourceLocality: localities.count > 1 ? .mixed : localities.first ?? .unspecified)
        }
        let one = ConnectivityState.allCases.flatMap { state in
            DataSourceLocality.allCases.map { SourceConnectivity(connectivityState: state, dataSourceLocality: $0) }
        }
        // Every list of length 0 to 3, one length at a time.
        var level: [[SourceConnectivity]] = [[]]
        var lists = level
        for _ in 0..<3 {
            level = level.flatMap { list in one.map { list + [$0] } }
            lists += level
        }
        #expect(lists.count == 1 + 20 + 400 + 8000)
        for parts in lists { #expect(SourceConnectivity.aggregate(parts) == rule(parts), "\(parts)") }
    }
}

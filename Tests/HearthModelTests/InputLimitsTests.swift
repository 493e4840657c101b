import Foundation
import HearthModel
import Testing

/// Untrusted input is refused by its size and nesting before it is parsed, never by a crash.
@Suite("Input limits")
struct InputLimitsTests {
    /// A schema whose one attribute has `type` and, if given, the raw JSON `defaultValue`.
    static func schema(type: String, defaultValue: String = #"{"uint": 0}"#) -> String {
        #"""
        {"id": 4293065729, "name": "Deep", "namespace": "vendor:Acme", "revision": 1, "description": "",
         "enums": [], "bitmaps": [], "structs": [], "responses": [], "events": [], "commands": [],
         "attributes": [{"id": 0, "name": "x", "type": "\#(type)", "access": "read", "nullable": false,
                         "isOptional": false, "defaultValue": \#(defaultValue), "constraints": {}, "description": ""}]}
        """#
    }

    @Test("a type nesting 100,000 lists is not a type, and is rejected at once")
    func deepTypeSpelling() {
        let deep = String(repeating: "list:", count: 100_000) + "uint8"
        #expect(ValueType(spelling: deep) == nil)
        let atCap = String(repeating: "list:", count: ValueType.maxListNesting) + "uint8"
        #expect(ValueType(spelling: atCap)?.listNesting == ValueType.maxListNesting)
        #expect(ValueType(spelling: "list:" + atCap) == nil)
        #expect(ValueType(spelling: "list:list:struct:S") == .list(.list(.struct("S"))))
        #expect(ValueType(spelling: "list:") == nil)
        #expect(ValueType(spelling: "enum:") == nil)
    }

    @Test(
        "schemas over a limit are refused with a message naming it, before decoding",
        arguments: [
            ("type", schema(type: String(repeating: "list:", count: 40_000) + "uint8"), "list: levels"),
            ("nesting", schema(type: String(repeating: "list:", count: 5) + "uint8"), "limit of 4"),
            (
                "default", schema(type: "uint8", defaultValue: String(repeating: "[", count: 100_000)),
                "deeper than the limit of 32"
            ),
            ("size", schema(type: "string") + String(repeating: " ", count: 300 * 1024), "limit of 262144 bytes"),
        ])
    func refused(name: String, json: String, expected: String) throws {
        let limits = InputLimits()
        do {
            _ = try limits.decodeSchema(json: json)
            Issue.record("\(name): accepted")
        } catch {
            let message = (error as? InputLimitError)?.message ?? "\(error)"
            #expect(message.contains(expected), "\(name): \(message.prefix(200))")
            #expect(message.count < 1_000, "\(name): the message must not echo the input")
        }
    }

    @Test("brackets inside JSON strings do not count as nesting; a schema within the limits decodes")
    func withinLimits() throws {
        let limits = InputLimits()
        try limits.checkJSON(Array(#"{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"]]]"}"#.utf8))
        let schema = try limits.decodeSchema(json: Self.schema(type: "list:list:uint8", defaultValue: #"{"list": []}"#))
        #expect(schema.attributes.first?.type == .list(.list(.uint(bits: 8))))
    }
}

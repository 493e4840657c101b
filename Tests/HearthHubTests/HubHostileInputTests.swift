import Foundation
import HearthModel
import HearthProto
import HearthWire
import SwiftProtobuf
import Testing

@testable import HearthHub

/// What a buggy or hostile driver can send to be parsed: refused with the limit named, and the hub goes on.
@Suite("Hostile input from drivers")
struct HubHostileInputTests {
    static func schema(type: String, defaultValue: String) -> String {
        #"""
        {"id": 4293065729, "name": "Deep", "namespace": "vendor:Acme", "revision": 1, "description": "",
         "enums": [], "bitmaps": [], "structs": [], "responses": [], "events": [], "commands": [],
         "attributes": [{"id": 0, "name": "x", "type": "\#(type)", "access": "read", "nullable": false,
                         "isOptional": false, "defaultValue": \#(defaultValue), "constraints": {}, "description": ""}]}
        """#
    }

    @Test("schemas nesting 100,000 levels are rejected by name and the devices beside them still land")
    func deepSchemas() async throws {
        try await withEngine { engine in
            let result = try await engine.announce(
                driver: "lights",
                .with {
                    $0.vendorTraitSchemasJson = [
                        Self.schema(type: String(repeating: "list:", count: 100_000) + "uint8", defaultValue: "null"),
                        Self.schema(type: "uint8", defaultValue: String(repeating: "[", count: 100_000)),
                    ]
                    $0.devices = [onOffLight("lamp")]
                })
            #expect(result.rejected.count == 2)
            #expect(result.rejected.allSatisfy { $0.code == 3 })  // INVALID_ARGUMENT
            #expect(result.rejected.allSatisfy { $0.message.count < 1_000 })
            #expect(result.rejected.last?.message.contains("deeper than the limit of 32") == true)
            #expect(result.accepted == ["lamp"])
        }
    }

    @Test("a message nesting more than the protobuf depth limit is INVALID_ARGUMENT, and the hub goes on")
    func deepMessage() async throws {
        var value = Hearth_V1_Value.with { $0.boolValue = true }
        for _ in 0..<200 { value = .with { $0.listValue = .with { $0.values = [value] } } }
        let request = Hearth_V1_SendCommandRequest.with {
            $0.deviceID = "lights/lamp"
            $0.endpoint = 1
            $0.traitID = 0x0006
            $0.commandID = 0x02
            $0.fields = .with { $0.fields = [.with { $0.value = value }] }
        }
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                do {
                    _ = try await client.call(HomeMethods.sendCommand, request)
                    Issue.record("a 200-level message was accepted")
                } catch let error as RPCError {
                    #expect(error.code == .invalidArgument)
                    #expect(error.message.contains("limit of \(protobufDepthLimit)"))
                }
                _ = try await client.call(HomeMethods.getHub, .init())
            }
        }
    }
}

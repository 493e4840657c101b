import Foundation
import HearthModel
import Testing

@Suite("Vendor traits announced at run time")
struct VendorTraitTests {
    /// A vendor trait built in code, as a driver written in Swift would announce it.
    static let blinds = TraitSchema(
        id: 0xFFF3_FC00, name: "Blinds", namespace: .vendor("AcmeShades"), revision: 1,
        description: "Slat angle of venetian blinds.",
        enums: [EnumSchema(name: "TiltEnum", items: [.init(value: 0, name: "open"), .init(value: 1, name: "closed")])],
        attributes: [
            AttributeSchema(
                id: 0x0000, name: "slatAngle", type: .int(bits: 8), access: .readWrite, defaultValue: .int(0),
                constraints: Constraints(minimum: -90, maximum: 90)),
            AttributeSchema(id: 0x0001, name: "tilt", type: .enum("TiltEnum")),
        ],
        commands: [
            CommandSchema(id: 0x00, name: "tiltTo", fields: [FieldSchema(id: 0, name: "tilt", type: .enum("TiltEnum"))])
        ])

    /// The same kind of announcement as JSON, as a driver in another language would send it.
    static let fanJSON = #"""
        {"id": 4293065729, "name": "Ceiling", "namespace": "vendor:AcmeFans", "revision": 2, "description": "",
         "enums": [], "bitmaps": [], "structs": [], "responses": [], "events": [],
         "attributes": [{"id": 0, "name": "speed", "type": "uint8", "access": "readWrite", "nullable": false,
                         "isOptional": false, "defaultValue": {"uint": 0},
                         "constraints": {"maximum": 6}, "description": "Speed step."}],
         "commands": []}
        """#

    @Test("a trait built in code registers and is validated")
    func registerInCode() throws {
        var catalog = Catalog.builtin
        try catalog.registerVendorTrait(Self.blinds)
        let validator = Validator(catalog: catalog)
        try validator.validateWrite(trait: 0xFFF3_FC00, attributes: [0x0000: .int(-45)])
        let error = #expect(throws: ValidationError.self) {
            try validator.validateWrite(trait: 0xFFF3_FC00, attributes: [0x0000: .int(120)])
        }
        #expect(error?.code == .outOfRange)
    }

    @Test("a trait decoded from JSON registers and is validated")
    func registerFromJSON() throws {
        let schema = try JSONDecoder().decode(TraitSchema.self, from: Data(Self.fanJSON.utf8))
        #expect(schema.id == 0xFFE2_FC01)
        var catalog = Catalog.builtin
        try catalog.registerVendorTrait(schema)
        try Validator(catalog: catalog).validateWrite(trait: schema.id, attributes: [0: .uint(6)])
        #expect(throws: ValidationError.self) {
            try Validator(catalog: catalog).validateWrite(trait: schema.id, attributes: [0: .uint(7)])
        }
    }

    @Test("registering the same schema twice is harmless")
    func idempotent() throws {
        var catalog = Catalog.builtin
        try catalog.registerVendorTrait(Self.blinds)
        try catalog.registerVendorTrait(Self.blinds)
        #expect(catalog.trait(0xFFF3_FC00) == Self.blinds)
    }

    @Test("a schema identical to a builtin one is no clash (the driver cannot know the hub has it)")
    func identicalToBuiltin() throws {
        var catalog = Catalog.builtin
        let spinner = try #require(catalog.trait(0xFFF2_FC00))
        try catalog.registerVendorTrait(spinner)
        #expect(catalog == Catalog.builtin)
        var changed = spinner
        changed.revision = 2
        let error = #expect(throws: CatalogError.self) { try catalog.registerVendorTrait(changed) }
        #expect(error?.code == .clashesWithBuiltin)
    }

    static func refusal(_ change: (inout TraitSchema) -> Void) -> TraitSchema {
        var schema = blinds
        change(&schema)
        return schema
    }

    static let refusals: [(String, TraitSchema, CatalogError.Code)] = [
        ("matter namespace", refusal { $0.namespace = .matter }, .notVendorNamespace),
        ("standard id", refusal { $0.id = 0x0042 }, .idOutsideVendorRange),
        ("suffix below 0xFC00", refusal { $0.id = 0xFFF3_0001 }, .idOutsideVendorRange),
        ("builtin id", refusal { $0.id = 0xFFF2_FC00 }, .clashesWithBuiltin),
        ("duplicate attribute id", refusal { $0.attributes[1].id = 0x0000 }, .malformed),
        ("unknown enum", refusal { $0.attributes[1].type = .enum("NoSuchEnum") }, .malformed),
        ("bad default", refusal { $0.attributes[0].defaultValue = .string("flat") }, .malformed),
        ("unknown response", refusal { $0.commands[0].response = "Nope" }, .malformed),
    ]

    @Test("malformed or clashing schemas are refused with the right code", arguments: refusals)
    func refused(label: String, schema: TraitSchema, code: CatalogError.Code) {
        var catalog = Catalog.builtin
        let error = #expect(throws: CatalogError.self, "\(label)") { try catalog.registerVendorTrait(schema) }
        #expect(error?.code == code, "\(label): \(error?.message ?? "")")
    }

    @Test("a different schema under a registered id is refused")
    func conflicting() throws {
        var catalog = Catalog.builtin
        try catalog.registerVendorTrait(Self.blinds)
        let error = #expect(throws: CatalogError.self) {
            try catalog.registerVendorTrait(Self.refusal { $0.revision = 2 })
        }
        #expect(error?.code == .conflictingRegistration)
    }
}

@Suite("Validator's index of the catalog")
struct ValidationIndexTests {
    @Test("a trait registered into a validator's catalog after it was made is indexed, enums included")
    func catalogChangedLater() throws {
        var validator = Validator(catalog: .builtin)
        #expect(throws: ValidationError.self) {
            try validator.validateReport(trait: 0xFFF3_FC00, attributes: [0x0001: .enum(1)])
        }
        var catalog = validator.catalog
        try catalog.registerVendorTrait(VendorTraitTests.blinds)
        validator.catalog = catalog
        try validator.validateReport(trait: 0xFFF3_FC00, attributes: [0x0001: .enum(1), 0x0000: .int(-90)])
        try validator.validateReport(trait: 0xFFF3_FC00, attributes: [0x0001: .uint(0)])
        let error = #expect(throws: ValidationError.self) {
            try validator.validateReport(trait: 0xFFF3_FC00, attributes: [0x0001: .enum(2)])
        }
        #expect(error?.code == .notInAllowedSet)
        #expect(error?.message.contains("TiltEnum") == true, "\(error?.message ?? "")")
    }

    @Test("the quick checks decide only what they may: types, nulls, read-only attributes")
    func quickChecks() throws {
        let validator = Validator(catalog: .builtin)
        // OnOff.onOff is a read-only boolean: a report passes, a write is refused, another type is refused.
        try validator.validateReport(trait: 0x0006, attributes: [0x0000: .bool(true)])
        #expect(throws: ValidationError.self) { try validator.validateWrite(trait: 0x0006, attributes: [0x0000: .bool(true)]) }
        let wrongType = #expect(throws: ValidationError.self) {
            try validator.validateReport(trait: 0x0006, attributes: [0x0000: .uint(1)])
        }
        #expect(wrongType?.code == .wrongType)
        // An enum attribute (camera TriStateAutoEnum): in the set, out of it, null where not nullable.
        try validator.validateReport(trait: 0xFFF1_FC03, attributes: [0x0016: .enum(2)])
        let outside = #expect(throws: ValidationError.self) {
            try validator.validateReport(trait: 0xFFF1_FC03, attributes: [0x0016: .enum(7)])
        }
        #expect(outside?.code == .notInAllowedSet)
        let null = #expect(throws: ValidationError.self) {
            try validator.validateReport(trait: 0xFFF1_FC03, attributes: [0x0016: .null])
        }
        #expect(null?.code == .nullNotAllowed)
    }

    @Test("integers: width, declared bounds and allowed sets decide as the general checker does")
    func integers() throws {
        let validator = Validator(catalog: .builtin)
        // LevelControl.onLevel: uint8 with a declared maximum of 254.
        for good: Value in [.uint(254), .int(254), .uint(0)] {
            try validator.validateReport(trait: 0x0008, attributes: [0x0011: good])
        }
        for (bad, code) in [(Value.uint(255), ValidationError.Code.outOfRange), (.int(-1), .outOfRange),
                            (.uint(.max), .outOfRange), (.string("254"), .wrongType)] {
            let error = #expect(throws: ValidationError.self) {
                try validator.validateReport(trait: 0x0008, attributes: [0x0011: bad])
            }
            #expect(error?.code == code, "\(bad): \(error?.message ?? "")")
        }
        // CameraAvStreamManagement.imageRotation: an allowed set.
        try validator.validateReport(trait: 0xFFF1_FC03, attributes: [0x0022: .uint(180)])
        let rotation = #expect(throws: ValidationError.self) {
            try validator.validateReport(trait: 0xFFF1_FC03, attributes: [0x0022: .uint(90)])
        }
        #expect(rotation?.code == .notInAllowedSet)
    }
}

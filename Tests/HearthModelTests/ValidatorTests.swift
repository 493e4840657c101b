import HearthModel
import Testing

@Suite("Validator")
struct ValidatorTests {
    let validator = Validator(catalog: .builtin)

    static let onOff: TraitID = 0x0006
    static let level: TraitID = 0x0008
    static let color: TraitID = 0x0300
    static let camera: TraitID = 0xFFF1_FC03
    static let push: TraitID = 0xFFF1_FC02
    static let basic: TraitID = 0x0028

    /// A write that must be refused, with the code and a piece the message must contain.
    struct BadWrite: Sendable, CustomTestStringConvertible {
        var label: String
        var trait: TraitID
        var attributes: [AttributeID: Value]
        var code: ValidationError.Code
        var mentions: String
        var testDescription: String { label }
    }

    static let badWrites: [BadWrite] = [
        BadWrite(label: "wrong type", trait: level, attributes: [0x0011: .string("high")], code: .wrongType,
                 mentions: "onLevel"),
        BadWrite(label: "out of declared range", trait: level, attributes: [0x0011: .uint(255)], code: .outOfRange,
                 mentions: "255"),
        BadWrite(label: "out of type width", trait: camera, attributes: [0x0022: .uint(70_000)], code: .outOfRange,
                 mentions: "uint16"),
        BadWrite(label: "image rotation 90", trait: camera, attributes: [0x0022: .uint(90)], code: .notInAllowedSet,
                 mentions: "imageRotation"),
        BadWrite(label: "not in enum", trait: camera, attributes: [0x0016: .enum(7)], code: .notInAllowedSet,
                 mentions: "TriStateAutoEnum"),
        BadWrite(label: "status light brightness 9", trait: camera, attributes: [0x0028: .enum(9)],
                 code: .notInAllowedSet, mentions: "ThreeLevelAutoEnum"),
        BadWrite(label: "unknown trait", trait: 0x1234, attributes: [0: .bool(true)], code: .unknownTrait,
                 mentions: "0x1234"),
        BadWrite(label: "unknown attribute", trait: onOff, attributes: [0x0777: .bool(true)], code: .unknownAttribute,
                 mentions: "0x0777"),
        BadWrite(label: "read-only", trait: onOff, attributes: [0x0000: .bool(true)], code: .readOnly,
                 mentions: "onOff"),
        BadWrite(label: "null where not nullable", trait: camera, attributes: [0x001D: .null],
                 code: .nullNotAllowed, mentions: "microphoneMuted"),
        BadWrite(label: "string too long", trait: basic, attributes: [0x0005: .string(String(repeating: "x", count: 33))],
                 code: .lengthOutOfRange, mentions: "nodeLabel"),
        BadWrite(label: "viewport missing y2", trait: camera,
                 attributes: [0x0018: .struct([0: .uint(0), 1: .uint(0), 2: .uint(1920)])],
                 code: .missingRequiredField, mentions: "viewport.y2"),
        BadWrite(label: "viewport unknown field", trait: camera,
                 attributes: [0x0018: .struct([0: .uint(0), 1: .uint(0), 2: .uint(1), 3: .uint(1), 9: .uint(1)])],
                 code: .unknownField, mentions: "9"),
    ]

    @Test("refuses bad writes with the right code and a precise message", arguments: badWrites)
    func refusesWrites(_ bad: BadWrite) {
        let error = #expect(throws: ValidationError.self) {
            try validator.validateWrite(trait: bad.trait, attributes: bad.attributes)
        }
        #expect(error?.code == bad.code, "\(error?.message ?? "")")
        #expect(error?.message.contains(bad.mentions) == true, "\(error?.message ?? "")")
    }

    @Test("accepts good writes, nulls where nullable, and integers of either sign kind")
    func acceptsWrites() throws {
        try validator.validateWrite(trait: Self.level, attributes: [0x0011: .uint(254), 0x0012: .null])
        try validator.validateWrite(trait: Self.level, attributes: [0x0011: .int(3)])
        try validator.validateWrite(trait: Self.camera, attributes: [0x0022: .uint(180), 0x0016: .enum(2)])
        try validator.validateWrite(
            trait: Self.camera, attributes: [0x0018: .struct([0: .uint(0), 1: .uint(0), 2: .uint(1920), 3: .uint(1080)])])
    }

    static func motionOptions(sensitivity: Value, maxDuration: Value) -> Value {
        let timeControl: Value = .struct([0: .uint(5), 1: .uint(5), 2: maxDuration, 3: .uint(0)])
        let trigger: Value = .struct([0: .enum(1), 2: sensitivity, 3: timeControl, 4: .uint(0)])
        let container: Value = .struct([0: .enum(0)])
        return .struct([
            0: .enum(1), 3: .uint(1), 4: .string("https://ingest.example/"), 5: trigger, 6: .enum(0), 7: container,
        ])
    }

    struct BadCommand: Sendable, CustomTestStringConvertible {
        var label: String
        var trait: TraitID
        var command: CommandID
        var fields: Value
        var code: ValidationError.Code
        var mentions: String
        var testDescription: String { label }
    }

    static let badCommands: [BadCommand] = [
        BadCommand(label: "missing required argument", trait: level, command: 0x00,
                   fields: .struct([0: .uint(10), 2: .uint(0), 3: .uint(0)]), code: .missingRequiredField,
                   mentions: "transitionTime"),
        BadCommand(label: "unknown command", trait: onOff, command: 0x77, fields: .null, code: .unknownCommand,
                   mentions: "0x77"),
        BadCommand(label: "unknown argument", trait: onOff, command: 0x01, fields: .struct([5: .bool(true)]),
                   code: .unknownField, mentions: "field 5"),
        BadCommand(label: "colour step mode 2 is not in the enum", trait: color, command: 0x02,
                   fields: .struct([0: .enum(2), 1: .uint(1), 2: .uint(1), 3: .uint(0), 4: .uint(0)]),
                   code: .notInAllowedSet, mentions: "StepModeEnum"),
        BadCommand(label: "wake-up sensitivity 3", trait: push, command: 0x03,
                   fields: .struct([0: .uint(1), 1: motionOptions(sensitivity: .uint(3), maxDuration: .uint(30))]),
                   code: .notInAllowedSet, mentions: "motionSensitivity"),
        BadCommand(label: "maximum event length 45 s", trait: push, command: 0x03,
                   fields: .struct([0: .uint(1), 1: motionOptions(sensitivity: .uint(5), maxDuration: .uint(45))]),
                   code: .notInAllowedSet, mentions: "maxDuration"),
        BadCommand(label: "arguments not a struct", trait: level, command: 0x00, fields: .uint(3), code: .wrongType,
                   mentions: "moveToLevel"),
    ]

    @Test("refuses bad commands with the right code and a precise message", arguments: badCommands)
    func refusesCommands(_ bad: BadCommand) {
        let error = #expect(throws: ValidationError.self) {
            try validator.validateCommand(trait: bad.trait, command: bad.command, fields: bad.fields)
        }
        #expect(error?.code == bad.code, "\(error?.message ?? "")")
        #expect(error?.message.contains(bad.mentions) == true, "\(error?.message ?? "")")
    }

    @Test("accepts a whole TransportOptionsStruct with allowed camera values", arguments: [1, 5, 10] as [UInt64])
    func acceptsTransport(sensitivity: UInt64) throws {
        for duration: UInt64 in [10, 15, 30, 60, 120, 180] {
            try validator.validateCommand(
                trait: Self.push, command: 0x03,
                fields: .struct([0: .uint(1), 1: Self.motionOptions(sensitivity: .uint(sensitivity), maxDuration: .uint(duration))]))
        }
    }

    @Test("an unknown event is refused")
    func unknownEvent() {
        let error = #expect(throws: ValidationError.self) {
            try validator.validateEvent(trait: 0xFFF1_FC00, event: 0x09, fields: .null)
        }
        #expect(error?.code == .unknownEvent)
    }
}

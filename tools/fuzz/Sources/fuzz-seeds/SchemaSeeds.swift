import Foundation
import HearthModel

/// Seeds of `FuzzVendorSchema`: vendor trait schemas as drivers send them (`JSONEncoder` with sorted keys,
/// as `HearthDriverKit.Driver` encodes `vendorTraitSchemas`), and type spellings.
enum SchemaSeeds {
    static let spinnerID: TraitID = 0xFFF2_FC00

    static func write(_ corpus: inout Corpus) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // The shipped vendor driver's schema (HearthSimulator's SpinnerSchema.schema, which the catalog
        // carries too; the hub's tests check they are equal): for this hub, the "same as builtin" path.
        let spinner = Catalog.builtin.trait(spinnerID)!
        try corpus.add("spinner.json", Array(try encoder.encode(spinner)))
        // The same trait from a hub that was not built with it: registered anew.
        var unknown = spinner
        unknown.id = 0xFFF3_FC00
        unknown.namespace = .vendor("OtherOrganization")
        try corpus.add("spinner-unknown-vendor.json", Array(try encoder.encode(unknown)))
        // Every builtin trait moved into a vendor namespace and range: enums, bitmaps, structs, lists,
        // constraints, commands with responses, events, as a driver could bring them.
        for (index, id) in Catalog.builtin.traits.keys.sorted().enumerated() where id != spinnerID {
            var schema = Catalog.builtin.trait(id)!
            schema.id = TraitID(0xFFF4_FC00 + UInt32(index))
            schema.namespace = .vendor("Fuzz")
            try corpus.add("vendor-\(schema.name).json", Array(try encoder.encode(schema)))
        }
        // A builtin trait as it is: refused (not a vendor namespace).
        try corpus.add("matter-OnOff.json", Array(try encoder.encode(Catalog.builtin.trait(0x0006)!)))
        for spelling in ["uint16", "int64", "enum:StartUpOnOffEnum", "bitmap:Feature", "struct:DeviceTypeStruct", "list:struct:DeviceTypeStruct", "list:list:uint8"] {
            try corpus.add("type-\(spelling.replacingOccurrences(of: ":", with: "-"))", Array(spelling.utf8))
        }
    }

    /// The shapes that used to overflow the hub's stack (`list:` nested thousands of times in a type, arrays
    /// nested thousands of times in a default value): since the hub's input limits they must be refused
    /// quickly, and `run.sh` replays them on every run.
    static func writeRegressions(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let deepType = String(repeating: "list:", count: 12_000) + "uint8"
        try Data(deepType.utf8).write(to: directory.appendingPathComponent("deep-list-spelling"))
        let schema = #"{"attributes":[{"access":"read","constraints":{},"description":"","id":0,"isOptional":false,"#
            + #""name":"deep","nullable":false,"type":"\#(deepType)"}],"bitmaps":[],"commands":[],"description":"","#
            + #""enums":[],"events":[],"id":4294310912,"name":"Deep","namespace":"vendor:Fuzz","responses":[],"#
            + #""revision":1,"structs":[]}"#
        try Data(schema.utf8).write(to: directory.appendingPathComponent("deep-list-schema.json"))
        let levels = 5_000
        let value = String(repeating: #"{"list":["#, count: levels) + String(repeating: "]}", count: levels)
        let defaulted = #"{"attributes":[{"access":"read","constraints":{},"defaultValue":\#(value),"description":"","#
            + #""id":0,"isOptional":false,"name":"deep","nullable":false,"type":"list:uint8"}],"bitmaps":[],"#
            + #""commands":[],"description":"","enums":[],"events":[],"id":4294310912,"name":"Deep","#
            + #""namespace":"vendor:Fuzz","responses":[],"revision":1,"structs":[]}"#
        try Data(defaulted.utf8).write(to: directory.appendingPathComponent("deep-array-default.json"))
    }
}

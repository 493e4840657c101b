import Foundation
import FuzzSupport
import HearthModel

/// libFuzzer's entry: the input is the text of one `Announce.vendor_trait_schemas_json` entry, read as the
/// hub reads it (`HubEngine.announce`): UTF-8 (the protobuf string), ``InputLimits/decodeSchema(json:)``
/// with the default limits (size and nesting checked, `JSONDecoder` into a ``TraitSchema``, type nesting
/// checked), then ``Catalog/registerVendorTrait(_:)`` on the builtin catalog. The same text is also parsed
/// as a value-type spelling (`"list:struct:Foo"`), the form schema types take inside the JSON.
///
/// Checked: a spelling that parses spells back to itself; a decoded schema encodes and decodes back to an
/// equal schema; a registered schema registers again without error (drivers re-announce on every
/// reconnect) and leaves the catalog without problems.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVendorSchema(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)

    if let type = ValueType(spelling: text) {
        fuzzCheck(type.spelling == text, "'\(text)' parsed as a type that spells '\(type.spelling)'")
    }

    guard let schema = try? InputLimits.defaults.decodeSchema(json: text) else { return 0 }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    if let encoded = try? encoder.encode(schema) {
        let again = try? JSONDecoder().decode(TraitSchema.self, from: encoded)
        fuzzCheck(again == schema, "schema \(schema.displayName) does not survive a JSON round trip")
    }

    var catalog = Catalog.builtin
    do {
        try catalog.registerVendorTrait(schema)
    } catch {
        return 0
    }
    do {
        try catalog.registerVendorTrait(schema)
    } catch {
        fuzzCheck(false, "registering \(schema.displayName) a second time failed: \(error.message)")
    }
    let problems = catalog.problems()
    fuzzCheck(problems.isEmpty, "catalog has problems after registering \(schema.displayName): \(problems)")
    return 0
}

import Foundation
import FuzzSupport
@testable import HearthModel
import HearthProto
import SwiftProtobuf

/// libFuzzer's entry: the first byte picks a driver-stream message, the rest is its protobuf encoding; its
/// values become ``Value``s and are validated against the builtin catalog as the hub does.
///
/// Low three bits of the first byte: 0 a `TraitReport` (report and write checks), 1 a `CommandRequest`'s
/// fields, 2 the same as a command's response, 3 an `Event`, 4–7 a bare `Value` checked against every
/// attribute of one trait. Bit 7 keeps a trait id the catalog does not know (otherwise it is mapped onto a
/// builtin trait, see ``Catalog/knownTrait(_:)``).
///
/// Checked: every value converts to the wire and back unchanged, and survives its JSON form; a bare value
/// read by the cold start's direct reader reads as swift-protobuf reads it, and HearthSDK's check
/// (``Value/check(protoBytes:)``) refuses exactly what that reader refuses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValueValidator(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start: start, count: count)
    let selector = input.byte()
    let bytes = Array(input.rest())
    let trait: (UInt32) -> TraitID = { selector & 0x80 != 0 ? TraitID($0) : Catalog.knownTrait($0) }
    let validator = Validator(catalog: .builtin)
    switch selector & 0x07 {
    case 0:
        guard let report = try? Hearth_V1_TraitReport(serializedBytes: bytes, options: .hub) else { return 0 }
        var attributes: [AttributeID: Value] = [:]
        for attribute in report.attributes { attributes[AttributeID(attribute.id)] = checked(attribute.value) }
        _ = try? validator.validateReport(trait: trait(report.traitID), attributes: attributes)
        _ = try? validator.validateWrite(trait: trait(report.traitID), attributes: attributes)
    case 1, 2:
        guard let request = try? Hearth_V1_CommandRequest(serializedBytes: bytes, options: .hub) else { return 0 }
        let fields = checkedStruct(request.fields)
        let command = CommandID(request.commandID)
        if selector & 0x07 == 1 {
            _ = try? validator.validateCommand(trait: trait(request.traitID), command: command, fields: fields)
        } else {
            _ = try? validator.validateResponse(trait: trait(request.traitID), command: command, fields: fields)
        }
    case 3:
        guard let event = try? Hearth_V1_Event(serializedBytes: bytes, options: .hub) else { return 0 }
        let fields = checkedStruct(event.fields)
        let eventID = EventID(event.eventID)
        _ = try? validator.validateEvent(trait: trait(event.traitID), event: eventID, fields: fields)
    default:
        checkDirectReading(bytes)
        guard let proto = try? Hearth_V1_Value(serializedBytes: bytes, options: .hub) else { return 0 }
        let value = checked(proto)
        let schema = validator.catalog.trait(Catalog.knownTrait(UInt32(selector >> 3)))!
        for attribute in schema.attributes {
            _ = try? validator.validate(
                value, type: attribute.type, nullable: attribute.nullable, constraints: attribute.constraints,
                in: schema, path: attribute.name)
        }
    }
    return 0
}

/// A hub's cold start reads stored values without swift-protobuf (``Value/init(protoBytes:)``); whatever that
/// reader accepts, swift-protobuf must read the same (compared on the re-encoded bytes, so that a NaN counts
/// as itself). What it refuses is left to swift-protobuf, so refusing is always allowed.
/// HearthSDK checks values without building them (``Value/check(protoBytes:)``): the check must refuse exactly
/// what the reader refuses.
func checkDirectReading(_ bytes: [UInt8]) {
    let checked = (try? bytes.withUnsafeBytes { try Value.check(protoBytes: $0) }) != nil
    let direct = try? bytes.withUnsafeBytes({ try Value(protoBytes: $0) })
    fuzzCheck(
        checked == (direct != nil),
        "the check \(checked ? "took" : "refused") a value the reader \(direct == nil ? "refuses" : "takes"): \(bytes)")
    guard let direct else { return }
    guard let proto = try? Hearth_V1_Value(serializedBytes: bytes) else {
        fatalError("the direct reader accepted a value swift-protobuf refuses: \(bytes)")
    }
    let ours: [UInt8] = try! direct.proto.serializedBytes()
    let theirs: [UInt8] = try! Value(proto: proto).proto.serializedBytes()
    precondition(ours == theirs, "the direct reader read \(direct), swift-protobuf \(Value(proto: proto))")
}

/// The wire value as a ``Value``, after checking that it goes back to the wire unchanged and survives JSON.
func checked(_ proto: Hearth_V1_Value) -> Value {
    let value = Value(proto: proto)
    let wire: [UInt8] = try! value.proto.serializedBytes()
    let again: [UInt8] = try! Value(proto: value.proto).proto.serializedBytes()
    fuzzCheck(wire == again, "\(value) changes on a second trip through the wire form")
    // JSON has no NaN or infinity: those values do not encode, which is fine.
    if let json = try? JSONEncoder().encode(value) {
        let decoded = try? JSONDecoder().decode(Value.self, from: json)
        let decodedWire: [UInt8]? = try? decoded?.proto.serializedBytes()
        fuzzCheck(decodedWire == wire, "\(value) changes through its JSON form \(String(decoding: json, as: UTF8.self))")
    }
    return value
}

/// A wire struct as a ``Value/struct(_:)``, each field checked as by ``checked(_:)``.
func checkedStruct(_ proto: Hearth_V1_StructValue) -> Value {
    for field in proto.fields { _ = checked(field.value) }
    return .struct(Value.fields(of: proto))
}

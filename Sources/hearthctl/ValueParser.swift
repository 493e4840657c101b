import Foundation
import HearthSDK

/// Reads a value typed on the command line as the catalog says the member is typed: `true`, `128`, `-5`,
/// `21.5`, `"text"` or text, `null`, an enum by name or number, a bitmap as a number, a list or struct as
/// JSON (`[1,2]`, `{"0": 1}` keyed by field id).
enum ValueParser {
    static func parse(_ text: String, as type: ValueType, nullable: Bool, in trait: TraitSchema) throws -> Value {
        if text == "null" {
            guard nullable else { throw Failure(.invalidArgument, "null is not allowed here") }
            return .null
        }
        switch type {
        case .bool:
            switch text.lowercased() {
            case "true", "on", "1": return .bool(true)
            case "false", "off", "0": return .bool(false)
            default: throw Failure(.invalidArgument, "'\(text)' is not a bool (true or false)")
            }
        case .uint, .bitmap:
            guard let value = UInt64(text) else { throw Failure(.invalidArgument, "'\(text)' is not an unsigned integer") }
            return .uint(value)
        case .int:
            guard let value = Int64(text) else { throw Failure(.invalidArgument, "'\(text)' is not an integer") }
            return .int(value)
        case .double:
            guard let value = Double(text) else { throw Failure(.invalidArgument, "'\(text)' is not a number") }
            return .double(value)
        case .string:
            let unquoted = text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
            return .string(unquoted)
        case .bytes:
            let hex = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
            guard hex.count % 2 == 0, let bytes = bytes(hex) else { throw Failure(.invalidArgument, "'\(text)' is not hex bytes") }
            return .bytes(bytes)
        case .enum(let name):
            if let raw = UInt32(text) { return .enum(raw) }
            let items = trait.enums.first { $0.name == name }?.items ?? []
            guard let item = items.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) else {
                throw Failure(.invalidArgument, "'\(text)' is not one of \(name): \(items.map(\.name).joined(separator: ", "))")
            }
            return .enum(item.value)
        case .list, .struct:
            guard let data = text.data(using: .utf8), let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
                throw Failure(.invalidArgument, "'\(text)' is not JSON")
            }
            return try value(json: json)
        }
    }

    private static func bytes(_ hex: String) -> [UInt8]? {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }

    /// JSON to a Value: numbers become uint (int when negative, double when fractional).
    private static func value(json: Any) throws -> Value {
        switch json {
        case is NSNull: return .null
        case let number as NSNumber where String(cString: number.objCType) == "c": return .bool(number.boolValue)
        case let number as NSNumber:
            if number.doubleValue != number.doubleValue.rounded() { return .double(number.doubleValue) }
            return number.int64Value < 0 ? .int(number.int64Value) : .uint(number.uint64Value)
        case let string as String: return .string(string)
        case let array as [Any]: return .list(try array.map(value(json:)))
        case let object as [String: Any]:
            var fields: [FieldID: Value] = [:]
            for (key, item) in object {
                guard let id = UInt32(key) else { throw Failure(.invalidArgument, "struct keys are field ids, got '\(key)'") }
                fields[FieldID(id)] = try value(json: item)
            }
            return .struct(fields)
        default: throw Failure(.invalidArgument, "unsupported JSON value")
        }
    }
}

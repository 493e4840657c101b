import Foundation
import HearthSDK

/// Tables for people, JSON for scripts.
enum Output {
    /// Prints rows under a header, each column as wide as its widest cell.
    static func table(_ header: [String], _ rows: [[String]]) {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        for row in [header] + rows {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            print(cells.joined(separator: "  "))
        }
    }

    /// Prints a JSON value (sorted keys, pretty).
    static func json(_ value: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    static func state(_ connectivity: SourceConnectivity) -> String {
        "\(connectivity.connectivityState)/\(connectivity.dataSourceLocality)"
    }

    /// A value as a person reads it: enums by name when the catalog knows them.
    static func text(_ value: Value, type: ValueType?, trait: TraitSchema?) -> String {
        switch value {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return "\(i)"
        case .uint(let u): return "\(u)"
        case .double(let d): return "\(d)"
        case .string(let s): return "\"\(s)\""
        case .bytes(let b): return "0x" + b.map { String(format: "%02x", $0) }.joined()
        case .null: return "null"
        case .enum(let raw):
            if case .enum(let name)? = type,
                let item = trait?.enums.first(where: { $0.name == name })?.items.first(where: { $0.value == raw })
            {
                return item.name
            }
            return "\(raw)"
        case .list(let items): return "[" + items.map { text($0, type: nil, trait: trait) }.joined(separator: ", ") + "]"
        case .struct(let fields):
            return "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key.rawValue): \(text($0.value, type: nil, trait: trait))" }
                .joined(separator: ", ") + "}"
        }
    }

    /// A value for JSON.
    static func jsonValue(_ value: Value) -> Any {
        switch value {
        case .bool(let b): b
        case .int(let i): i
        case .uint(let u): u
        case .double(let d): d
        case .string(let s): s
        case .bytes(let b): b.map { String(format: "%02x", $0) }.joined()
        case .null: NSNull()
        case .enum(let raw): raw
        case .list(let items): items.map(jsonValue)
        case .struct(let fields): Dictionary(uniqueKeysWithValues: fields.map { ("\($0.key.rawValue)", jsonValue($0.value)) })
        }
    }
}

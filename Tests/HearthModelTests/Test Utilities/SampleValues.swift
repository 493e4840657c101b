public import HearthModel
public import Testing

/// Makes a valid sample value for any catalog type: the first allowed value, else the minimum, else 0; strings
/// and lists of the minimum length; structs with every field.
enum SampleValues {
    static func sample(
        _ type: ValueType, constraints: Constraints = .none, in trait: TraitSchema
    ) -> Value {
        switch type {
        case .bool: return .bool(true)
        case .int: return .int(constraints.allowed?.first ?? constraints.minimum ?? min(0, constraints.maximum ?? 0))
        case .uint: return .uint(UInt64(constraints.allowed?.first ?? constraints.minimum ?? 0))
        case .double: return .double(1.5)
        case .string: return .string(String(repeating: "a", count: max(constraints.minLength ?? 1, 1)))
        case .bytes: return .bytes(Array(repeating: 7, count: constraints.minLength ?? 2))
        case .enum(let name): return .enum(trait.enumSchema(named: name)!.items[0].value)
        case .bitmap: return .uint(constraints.minimum.map(UInt64.init) ?? 0)
        case .struct(let name):
            var fields: [FieldID: Value] = [:]
            for field in trait.structSchema(named: name)!.fields {
                fields[field.id] = sample(field.type, constraints: field.constraints, in: trait)
            }
            return .struct(fields)
        case .list(let element):
            let count = max(constraints.minLength ?? 1, 1)
            return .list(Array(repeating: sample(element, in: trait), count: count))
        }
    }

    /// A struct with a sample for every field (optional ones too).
    static func sample(fields: [FieldSchema], in trait: TraitSchema) -> Value {
        var values: [FieldID: Value] = [:]
        for field in fields {
            values[field.id] = sample(field.type, constraints: field.constraints, in: trait)
        }
        return .struct(values)
    }
}

extension TraitSchema: CustomTestStringConvertible {
    public var testDescription: String { displayName }
}

extension DeviceTypeSchema: CustomTestStringConvertible {
    public var testDescription: String { "\(name) (\(id))" }
}

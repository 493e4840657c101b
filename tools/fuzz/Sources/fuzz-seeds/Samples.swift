import HearthModel

/// Plausible values for a schema's types: an attribute's default when it has one, else the first enum
/// item, a one-element list, a struct with every field; good starting points for a fuzzer.
enum Samples {
    static func value(_ type: ValueType, in trait: TraitSchema, depth: Int = 0) -> Value {
        switch type {
        case .bool: return .bool(true)
        case .int: return .int(1)
        case .uint: return .uint(1)
        case .double: return .double(1.5)
        case .string: return .string("text")
        case .bytes: return .bytes([1, 2, 3])
        case .enum(let name): return .enum(trait.enumSchema(named: name)?.items.first?.value ?? 0)
        case .bitmap: return .uint(1)
        case .struct(let name):
            guard depth < 4, let schema = trait.structSchema(named: name) else { return .struct([:]) }
            return fields(schema.fields, in: trait, depth: depth + 1)
        case .list(let element): return .list([value(element, in: trait, depth: depth + 1)])
        }
    }

    static func fields(_ fields: [FieldSchema], in trait: TraitSchema, depth: Int = 0) -> Value {
        .struct(Dictionary(uniqueKeysWithValues: fields.map { ($0.id, value($0.type, in: trait, depth: depth)) }))
    }

    static func attributes(of trait: TraitSchema) -> [AttributeID: Value] {
        Dictionary(uniqueKeysWithValues: trait.attributes.map { ($0.id, $0.defaultValue ?? value($0.type, in: trait)) })
    }
}

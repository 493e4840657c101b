/// Checks that a trait schema holds together: unique ids and names, type names that resolve, responses that
/// exist, defaults and allowed values of the right type.
enum SchemaChecker {
    static func problems(in trait: TraitSchema) -> [String] {
        var problems: [String] = []
        func duplicates<T: Hashable>(_ items: [T]) -> [T] {
            var seen = Set<T>()
            return items.filter { !seen.insert($0).inserted }
        }
        for id in duplicates(trait.attributes.map(\.id)) { problems.append("attribute id \(id) is used twice") }
        for id in duplicates(trait.commands.map(\.id)) { problems.append("command id \(id) is used twice") }
        for id in duplicates(trait.responses.map(\.id)) { problems.append("response id \(id) is used twice") }
        for id in duplicates(trait.events.map(\.id)) { problems.append("event id \(id) is used twice") }
        let typeNames = trait.enums.map(\.name) + trait.bitmaps.map(\.name) + trait.structs.map(\.name)
        for name in duplicates(typeNames) { problems.append("type name '\(name)' is declared twice") }
        for name in duplicates(trait.attributes.map(\.name)) { problems.append("attribute name '\(name)' is used twice") }
        for name in duplicates(trait.commands.map(\.name)) { problems.append("command name '\(name)' is used twice") }

        func check(_ type: ValueType, at path: String) {
            switch type {
            case .int(let bits), .uint(let bits):
                if ![8, 16, 32, 64].contains(bits) { problems.append("\(path): integer width \(bits) is not 8, 16, 32 or 64") }
            case .enum(let name):
                if trait.enumSchema(named: name) == nil { problems.append("\(path): unknown enum '\(name)'") }
            case .bitmap(let name):
                if trait.bitmapSchema(named: name) == nil { problems.append("\(path): unknown bitmap '\(name)'") }
            case .struct(let name):
                if trait.structSchema(named: name) == nil { problems.append("\(path): unknown struct '\(name)'") }
            case .list(let element):
                check(element, at: path)
            case .bool, .double, .string, .bytes:
                break
            }
        }
        func check(fields: [FieldSchema], at path: String) {
            for id in duplicates(fields.map(\.id)) { problems.append("\(path): field id \(id) is used twice") }
            for field in fields { check(field.type, at: "\(path).\(field.name)") }
        }
        for item in trait.structs { check(fields: item.fields, at: item.name) }
        for item in trait.enums where item.items.isEmpty { problems.append("enum '\(item.name)' has no items") }
        for item in trait.enums {
            for value in duplicates(item.items.map(\.value)) { problems.append("enum '\(item.name)': value \(value) is used twice") }
        }
        for attribute in trait.attributes { check(attribute.type, at: attribute.name) }
        for command in trait.commands {
            check(fields: command.fields, at: command.name)
            if let response = command.response, trait.response(named: response) == nil {
                problems.append("\(command.name): unknown response '\(response)'")
            }
        }
        for response in trait.responses { check(fields: response.fields, at: response.name) }
        for event in trait.events { check(fields: event.fields, at: event.name) }
        guard problems.isEmpty else { return problems }

        // Types resolve, so defaults can be validated.
        let validator = Validator(catalog: Catalog(traits: [trait], deviceTypes: []))
        for attribute in trait.attributes {
            guard let value = attribute.defaultValue else { continue }
            do {
                try validator.validate(
                    value, type: attribute.type, nullable: attribute.nullable, constraints: attribute.constraints,
                    in: trait, path: attribute.name)
            } catch {
                problems.append("default of \(attribute.name) is invalid: \(error.message)")
            }
        }
        return problems
    }
}

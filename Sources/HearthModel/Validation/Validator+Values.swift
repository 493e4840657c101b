extension Validator {
    /// Checks one value against a type, nullability and constraints. `trait` resolves enum, bitmap and struct
    /// names; `path` names the place for the error message, and is only formed when there is an error (a
    /// report of a valid value allocates nothing for it).
    public func validate(
        _ value: Value, type: ValueType, nullable: Bool, constraints: Constraints, in trait: TraitSchema,
        path: @autoclosure () -> String
    ) throws(ValidationError) {
        if case .null = value {
            guard nullable else {
                throw ValidationError(code: .nullNotAllowed, message: "\(path()) is not nullable; got null", path: path())
            }
            return
        }
        func wrongType() -> ValidationError {
            ValidationError(
                code: .wrongType, message: "\(path()) expects \(type.spelling); got \(value.kindName) \(value)",
                path: path())
        }
        switch type {
        case .bool:
            guard case .bool = value else { throw wrongType() }
        case .int(let bits):
            switch value {
            case .int(let i):
                try checkNumber(i, bits: bits, signed: true, constraints, value, path())
            case .uint(let u):
                guard u <= UInt64(Int64.max) else { throw outOfRange(value, "int\(bits)", path()) }
                try checkNumber(Int64(u), bits: bits, signed: true, constraints, value, path())
            default: throw wrongType()
            }
        case .uint(let bits):
            switch value {
            case .uint(let u):
                if bits < 64, u >> UInt64(bits) != 0 { throw outOfRange(value, "uint\(bits)", path()) }
                if u <= UInt64(Int64.max) { try checkNumber(Int64(u), bits: 64, signed: false, constraints, value, path()) }
            case .int(let i):
                guard i >= 0 else { throw outOfRange(value, "uint\(bits)", path()) }
                if bits < 64, UInt64(i) >> UInt64(bits) != 0 { throw outOfRange(value, "uint\(bits)", path()) }
                try checkNumber(i, bits: 64, signed: false, constraints, value, path())
            default: throw wrongType()
            }
        case .double:
            switch value {
            case .double, .int, .uint: break
            default: throw wrongType()
            }
        case .string:
            guard case .string(let s) = value else { throw wrongType() }
            try checkLength(s.utf8.count, constraints, "UTF-8 bytes", value, path())
        case .bytes:
            guard case .bytes(let b) = value else { throw wrongType() }
            try checkLength(b.count, constraints, "bytes", value, path())
        case .enum(let name):
            guard let raw = value.unsignedValue, raw <= UInt64(UInt32.max) else { throw wrongType() }
            guard let schema = trait.enumSchema(named: name), schema.contains(UInt32(raw)) else {
                let names = trait.enumSchema(named: name)?.items.map { "\($0.value) \($0.name)" } ?? []
                throw ValidationError(
                    code: .notInAllowedSet,
                    message: "\(path()): \(raw) is not a value of \(name) (\(names.joined(separator: ", ")))",
                    path: path())
            }
        case .bitmap:
            switch value {
            case .uint, .int:
                guard let raw = value.unsignedValue, raw <= UInt64(UInt32.max) else {
                    throw outOfRange(value, "bitmap32", path())
                }
                try checkNumber(Int64(raw), bits: 64, signed: false, constraints, value, path())
            default: throw wrongType()
            }
        case .struct(let name):
            guard let schema = trait.structSchema(named: name) else { throw wrongType() }
            try validate(fields: value, against: schema.fields, in: trait, path: path(), requireStruct: true)
        case .list(let element):
            guard case .list(let elements) = value else { throw wrongType() }
            try checkLength(elements.count, constraints, "elements", value, path())
            for (index, item) in elements.enumerated() {
                try validate(item, type: element, nullable: false, constraints: .none, in: trait, path: "\(path())[\(index)]")
            }
        }
    }

    /// Checks a struct-shaped value (command arguments, response, event payload or struct) against fields.
    func validate(
        fields value: Value, against fields: [FieldSchema], in trait: TraitSchema, path: @autoclosure () -> String,
        requireStruct: Bool = false
    ) throws(ValidationError) {
        let given: [FieldID: Value]
        switch value {
        case .struct(let f): given = f
        case .null where !requireStruct: given = [:]
        default:
            throw ValidationError(
                code: .wrongType, message: "\(path()) expects a struct of fields; got \(value.kindName) \(value)",
                path: path())
        }
        for id in given.keys.sorted() where !fields.contains(where: { $0.id == id }) {
            throw ValidationError(
                code: .unknownField, message: "\(path()) has no field \(id); got \(given[id]!)", path: "\(path()).#\(id)")
        }
        for field in fields {
            guard let fieldValue = given[field.id] else {
                guard field.isOptional else {
                    let fieldPath = "\(path()).\(field.name)"
                    throw ValidationError(
                        code: .missingRequiredField,
                        message: "\(fieldPath) (field \(field.id), \(field.type.spelling)) is required but missing",
                        path: fieldPath)
                }
                continue
            }
            try validate(
                fieldValue, type: field.type, nullable: field.nullable, constraints: field.constraints, in: trait,
                path: "\(path()).\(field.name)")
        }
    }

    private func checkNumber(
        _ number: Int64, bits: Int, signed: Bool, _ constraints: Constraints, _ value: Value, _ path: @autoclosure () -> String
    ) throws(ValidationError) {
        if signed, bits < 64 {
            let limit = Int64(1) << Int64(bits - 1)
            guard number >= -limit, number < limit else { throw outOfRange(value, "int\(bits)", path()) }
        }
        if let minimum = constraints.minimum, number < minimum {
            throw ValidationError(
                code: .outOfRange, message: "\(path()): \(value) is below the minimum \(minimum)", path: path())
        }
        if let maximum = constraints.maximum, number > maximum {
            throw ValidationError(
                code: .outOfRange, message: "\(path()): \(value) is above the maximum \(maximum)", path: path())
        }
        if let allowed = constraints.allowed, !allowed.contains(number) {
            throw ValidationError(
                code: .notInAllowedSet,
                message: "\(path()): \(value) is not one of "
                    + allowed.map(String.init).joined(separator: ", "),
                path: path())
        }
    }

    private func checkLength(
        _ length: Int, _ constraints: Constraints, _ unit: String, _ value: Value, _ path: @autoclosure () -> String
    ) throws(ValidationError) {
        if let minimum = constraints.minLength, length < minimum {
            throw ValidationError(
                code: .lengthOutOfRange,
                message: "\(path()): \(length) \(unit) is shorter than the minimum \(minimum); got \(value)", path: path())
        }
        if let maximum = constraints.maxLength, length > maximum {
            throw ValidationError(
                code: .lengthOutOfRange,
                message: "\(path()): \(length) \(unit) is longer than the maximum \(maximum)", path: path())
        }
    }

    private func outOfRange(_ value: Value, _ typeName: String, _ path: @autoclosure () -> String) -> ValidationError {
        ValidationError(code: .outOfRange, message: "\(path()): \(value) does not fit \(typeName)", path: path())
    }
}

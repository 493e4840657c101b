/// A catalog's trait and attribute schemas, indexed for the validator's hot path.
///
/// A driver's report is checked against its trait's schema on every change. Looking a schema up in the
/// catalog copies a `TraitSchema` (eleven reference-counted fields) and searches its attributes and enums
/// linearly, by name for enums; profiled at 20,000 reports/s that was a tenth of the hub. Here each trait
/// and attribute is a shared, immutable object found by its numeric id, and an enum attribute carries
/// its allowed values as a set.
final class ValidationIndex: Sendable {
    final class Trait: Sendable {
        let schema: TraitSchema
        let attributes: [AttributeID: Attribute]

        init(_ schema: TraitSchema) {
            self.schema = schema
            var attributes: [AttributeID: Attribute] = [:]
            for attribute in schema.attributes { attributes[attribute.id] = Attribute(attribute, in: schema) }
            self.attributes = attributes
        }
    }

    final class Attribute: Sendable {
        /// The types whose values ``quicklyValid(_:)`` decides.
        enum Quick: Sendable {
            case bool
            case double
            case enumeration(Set<UInt32>)
            /// An integer type: the range its width and constraints allow, and the allowed set if any.
            case integer(ClosedRange<Int64>, allowed: Set<Int64>?)
            /// Every other type (and an enum the trait does not define): the general checker decides.
            case none
        }

        let schema: AttributeSchema
        let isWritable: Bool
        let quick: Quick

        init(_ schema: AttributeSchema, in trait: TraitSchema) {
            self.schema = schema
            isWritable = schema.isWritable
            switch schema.type {
            case .bool: quick = .bool
            case .double: quick = .double
            case .enum(let name):
                quick = trait.enumSchema(named: name).map { .enumeration(Set($0.items.map(\.value))) } ?? .none
            case .int(let bits):
                let width = bits >= 64 ? Int64.min...Int64.max : -(Int64(1) << (bits - 1))...(Int64(1) << (bits - 1)) - 1
                quick = Self.integer(width, schema.constraints)
            case .uint(let bits):
                quick = Self.integer(bits >= 63 ? 0...Int64.max : 0...(Int64(1) << bits) - 1, schema.constraints)
            default: quick = .none
            }
        }

        /// `width` narrowed by the constraints' bounds (none left: the general checker decides and explains).
        private static func integer(_ width: ClosedRange<Int64>, _ constraints: Constraints) -> Quick {
            let low = max(width.lowerBound, constraints.minimum ?? .min)
            let high = min(width.upperBound, constraints.maximum ?? .max)
            guard low <= high else { return .none }
            return .integer(low...high, allowed: constraints.allowed.map(Set.init))
        }

        /// Whether `value` is certainly valid here, decided without the general checker: a boolean, a
        /// double, an enum value in the allowed set, an integer within its width and constraints. False means "ask the general checker" (which also
        /// forms the error), not "invalid".
        func quicklyValid(_ value: Value) -> Bool {
            switch quick {
            case .bool:
                if case .bool = value { return true }
                return false
            case .double:
                if case .double = value { return true }
                return false
            case .enumeration(let values):
                guard let raw = value.unsignedValue, raw <= UInt64(UInt32.max) else { return false }
                return values.contains(UInt32(raw))
            case .integer(let range, let allowed):
                let number: Int64
                switch value {
                case .int(let i): number = i
                case .uint(let u) where u <= UInt64(Int64.max): number = Int64(u)
                default: return false
                }
                return range.contains(number) && allowed?.contains(number) != false
            case .none:
                return false
            }
        }
    }

    let traits: [TraitID: Trait]

    init(_ catalog: Catalog) {
        traits = catalog.traits.mapValues(Trait.init)
    }
}

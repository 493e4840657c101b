/// Checks values, attribute writes, commands, responses, reports and events against a ``Catalog``.
///
/// Integers are accepted in either integer case (`.int` or `.uint`) when the number fits the declared width, so
/// that clients in languages without unsigned types are not refused; enums accept `.enum` or an integer.
/// Everything else must have the declared shape.
///
/// ```swift
/// let validator = Validator(catalog: .builtin)
/// try validator.validateCommand(trait: 0x0008, command: 0x00, fields: .struct([0: .uint(254), 1: .null,
///                                                                             2: .uint(0), 3: .uint(0)]))
/// ```
public struct Validator: Sendable {
    /// The schemas checked against; setting it (a vendor trait registered) re-indexes them.
    public var catalog: Catalog {
        didSet { index = ValidationIndex(catalog) }
    }
    /// The catalog's traits and attributes by id, for the report and write paths.
    private var index: ValidationIndex

    public init(catalog: Catalog) {
        self.catalog = catalog
        self.index = ValidationIndex(catalog)
    }

    /// A validator of ``Catalog/builtin``, made once: making one indexes every trait of its catalog, which
    /// typed commands and writes (HearthTypes) must not pay per call.
    public static let builtin = Validator(catalog: .builtin)

    /// Checks a client's attribute write.
    ///
    /// - Throws: ``ValidationError`` with `.unknownTrait`, `.unknownAttribute`, `.readOnly`, or a value code.
    public func validateWrite(trait traitID: TraitID, attributes: [AttributeID: Value]) throws(ValidationError) {
        try validate(attributes, of: traitID, writing: true)
    }

    /// Checks a driver's attribute report: any known attribute, read-only ones included.
    public func validateReport(trait traitID: TraitID, attributes: [AttributeID: Value]) throws(ValidationError) {
        try validate(attributes, of: traitID, writing: false)
    }

    /// Checks attribute values (an error names the lowest failing id); a write also needs each attribute to
    /// be writable.
    private func validate(_ attributes: [AttributeID: Value], of traitID: TraitID, writing: Bool)
        throws(ValidationError)
    {
        guard let trait = index.traits[traitID] else {
            throw ValidationError(code: .unknownTrait, message: "no trait has id \(traitID)", path: "\(traitID)")
        }
        // Valid reports (nearly all) are checked in any order, without sorting; a failure is looked for again
        // in id order, so that the error names the lowest failing id whatever the dictionary's order.
        do throws(ValidationError) {
            for (id, value) in attributes { try validate(id, value, in: trait, writing: writing) }
        } catch {
            for (id, value) in attributes.sorted(by: { $0.key < $1.key }) {
                try validate(id, value, in: trait, writing: writing)
            }
            throw error
        }
    }

    private func validate(_ id: AttributeID, _ value: Value, in indexed: ValidationIndex.Trait, writing: Bool)
        throws(ValidationError)
    {
        guard let entry = indexed.attributes[id] else {
            throw ValidationError(
                code: .unknownAttribute, message: "\(indexed.schema.displayName) has no attribute \(id)",
                path: indexed.schema.displayName)
        }
        if !writing || entry.isWritable, entry.quicklyValid(value) { return }
        let attribute = entry.schema
        let trait = indexed.schema
        if writing, !attribute.isWritable {
            throw ValidationError(
                code: .readOnly,
                message: "\(trait.displayName): attribute \(attribute.name) (\(id)) is read-only; "
                    + "refused write of \(value)",
                path: "\(trait.displayName).\(attribute.name)")
        }
        try validate(
            value, type: attribute.type, nullable: attribute.nullable, constraints: attribute.constraints,
            in: trait, path: "\(trait.displayName).\(attribute.name)")
    }

    /// Checks a command's arguments, given as a struct keyed by field id (`.null` or an empty struct when the
    /// command takes none).
    ///
    /// - Throws: ``ValidationError`` with `.unknownTrait`, `.unknownCommand`, `.unknownField`,
    ///   `.missingRequiredField`, or a value code.
    public func validateCommand(trait traitID: TraitID, command commandID: CommandID, fields: Value)
        throws(ValidationError)
    {
        let trait = try lookUp(traitID)
        guard let command = trait.command(commandID) else {
            throw ValidationError(
                code: .unknownCommand, message: "\(trait.displayName) has no command \(commandID)",
                path: trait.displayName)
        }
        try validate(fields: fields, against: command.fields, in: trait, path: "\(trait.displayName).\(command.name)")
    }

    /// Checks a driver's answer to a command against the command's response (or, when it has none, that the
    /// answer is empty).
    public func validateResponse(trait traitID: TraitID, command commandID: CommandID, fields: Value)
        throws(ValidationError)
    {
        let trait = try lookUp(traitID)
        guard let command = trait.command(commandID) else {
            throw ValidationError(
                code: .unknownCommand, message: "\(trait.displayName) has no command \(commandID)",
                path: trait.displayName)
        }
        let responseFields = command.response.flatMap { trait.response(named: $0) }?.fields ?? []
        try validate(
            fields: fields, against: responseFields, in: trait,
            path: "\(trait.displayName).\(command.name).response")
    }

    /// Checks an event a driver reports.
    public func validateEvent(trait traitID: TraitID, event eventID: EventID, fields: Value) throws(ValidationError) {
        let trait = try lookUp(traitID)
        guard let event = trait.event(eventID) else {
            throw ValidationError(
                code: .unknownEvent, message: "\(trait.displayName) has no event \(eventID)", path: trait.displayName)
        }
        try validate(fields: fields, against: event.fields, in: trait, path: "\(trait.displayName).\(event.name)")
    }

    private func lookUp(_ id: TraitID) throws(ValidationError) -> TraitSchema {
        guard let trait = catalog.trait(id) else {
            throw ValidationError(code: .unknownTrait, message: "no trait has id \(id)", path: "\(id)")
        }
        return trait
    }
}

/// The trait and device-type catalog: the one source of truth on what traits and device types mean.
///
/// ``builtin`` holds what `Catalog/` in the repository describes (generated into Swift, so no file is read at
/// run time). A driver that brings a trait the hub was not built with announces its schema, and the hub adds it
/// with ``registerVendorTrait(_:)``; from then on writes and commands to it are validated like any other.
///
/// ```swift
/// var catalog = Catalog.builtin
/// try catalog.registerVendorTrait(schemaFromDriver)
/// try Validator(catalog: catalog).validateWrite(trait: 0x0008, attributes: [0x0011: .uint(200)])
/// ```
public struct Catalog: Hashable, Sendable {
    /// Traits by id.
    public private(set) var traits: [TraitID: TraitSchema]
    /// Device types by id.
    public private(set) var deviceTypes: [DeviceTypeID: DeviceTypeSchema]
    /// The ids of traits that came with the catalog (not registered at run time).
    public let builtinTraitIDs: Set<TraitID>

    /// A catalog of exactly these traits and device types. Does not check them; see ``problems()``.
    public init(traits: [TraitSchema], deviceTypes: [DeviceTypeSchema]) {
        self.traits = Dictionary(traits.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.deviceTypes = Dictionary(deviceTypes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.builtinTraitIDs = Set(self.traits.keys)
    }

    /// The catalog generated from `Catalog/`.
    public static let builtin = Catalog(traits: builtinTraitSchemas, deviceTypes: builtinDeviceTypeSchemas)

    /// The trait with `id`, if known.
    public func trait(_ id: TraitID) -> TraitSchema? { traits[id] }

    /// The device type with `id`, if known.
    public func deviceType(_ id: DeviceTypeID) -> DeviceTypeSchema? { deviceTypes[id] }

    /// Adds a vendor trait announced at run time.
    ///
    /// Registering the same schema again (a driver re-announcing after a reconnect), or a schema identical to
    /// a builtin one (a driver announcing a trait this hub happens to be built with), succeeds and changes
    /// nothing.
    ///
    /// - Parameter schema: the trait's schema, as the driver sent it.
    /// - Throws: ``CatalogError`` with code `.notVendorNamespace` unless the namespace is `vendor:…`,
    ///   `.idOutsideVendorRange` unless the id is manufacturer-specific, `.clashesWithBuiltin` when a different builtin
    ///   trait has the id, `.conflictingRegistration` when another schema was registered under it, and
    ///   `.malformed` (with every problem listed) when the schema does not hold together.
    public mutating func registerVendorTrait(_ schema: TraitSchema) throws(CatalogError) {
        guard case .vendor = schema.namespace else {
            throw CatalogError(
                code: .notVendorNamespace,
                message: "trait \(schema.displayName) has namespace '\(schema.namespace.spelling)'; a run-time "
                    + "trait must be in a vendor namespace ('vendor:Name')")
        }
        guard Self.isManufacturerSpecific(schema.id) else {
            throw CatalogError(
                code: .idOutsideVendorRange,
                message: "trait \(schema.displayName): a vendor trait id needs a vendor prefix (upper 16 bits, "
                    + "not 0x0000 or 0xFFFF) and a suffix in 0xFC00...0xFFFE")
        }
        if builtinTraitIDs.contains(schema.id), let existing = traits[schema.id] {
            // A driver cannot know whether the hub was built with its trait; the same schema is no clash.
            if existing == schema { return }
            throw CatalogError(
                code: .clashesWithBuiltin,
                message: "trait \(schema.displayName) has the id of builtin trait \(existing.displayName)")
        }
        if let existing = traits[schema.id] {
            if existing == schema { return }
            throw CatalogError(
                code: .conflictingRegistration,
                message: "trait \(schema.displayName): a different schema is already registered under this id "
                    + "(\(existing.name), revision \(existing.revision))")
        }
        let problems = SchemaChecker.problems(in: schema)
        guard problems.isEmpty else {
            throw CatalogError(
                code: .malformed,
                message: "trait \(schema.displayName) is malformed: " + problems.joined(separator: "; "))
        }
        traits[schema.id] = schema
    }

    /// Every inconsistency in the catalog: malformed traits and device types naming unknown traits.
    /// Empty for a sound catalog; the tests require it of ``builtin``.
    public func problems() -> [String] {
        var problems: [String] = []
        for trait in traits.values.sorted(by: { $0.id < $1.id }) {
            problems += SchemaChecker.problems(in: trait).map { "\(trait.displayName): \($0)" }
        }
        for type in deviceTypes.values.sorted(by: { $0.id < $1.id }) {
            for id in type.allTraits where traits[id] == nil {
                problems.append("device type \(type.name) (\(type.id)) lists unknown trait \(id)")
            }
            if Set(type.allTraits).count != type.allTraits.count {
                problems.append("device type \(type.name) (\(type.id)) lists a trait twice")
            }
        }
        return problems
    }

    /// Whether `id` is a Matter manufacturer-specific cluster id: vendor prefix 0x0001...0xFFFE, suffix
    /// 0xFC00...0xFFFE.
    public static func isManufacturerSpecific(_ id: TraitID) -> Bool {
        let prefix = id.rawValue >> 16
        let suffix = id.rawValue & 0xFFFF
        return prefix != 0 && prefix != 0xFFFF && (0xFC00...0xFFFE).contains(suffix)
    }
}

/// Where a trait or device type comes from; decides its Swift namespace (`Matter.`, `Google.`, a vendor's).
public enum CatalogNamespace: Hashable, Sendable {
    /// A Matter cluster or device type.
    case matter
    /// A platform trait or device type of the API Hearth re-creates.
    case google
    /// A vendor's own, named by the vendor (`ExampleOrganization`).
    case vendor(String)

    /// `matter`, `google` or `vendor:Name`.
    public var spelling: String {
        switch self {
        case .matter: "matter"
        case .google: "google"
        case .vendor(let name): "vendor:\(name)"
        }
    }

    /// Parses `spelling`; nil when malformed.
    public init?(spelling: String) {
        switch spelling {
        case "matter": self = .matter
        case "google": self = .google
        default:
            guard spelling.hasPrefix("vendor:"), spelling.count > 7 else { return nil }
            self = .vendor(String(spelling.dropFirst(7)))
        }
    }
}

extension CatalogNamespace: Codable {
    public init(from decoder: any Decoder) throws {
        let spelling = try String(from: decoder)
        guard let namespace = CatalogNamespace(spelling: spelling) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(spelling)' is not a namespace"))
        }
        self = namespace
    }

    public func encode(to encoder: any Encoder) throws { try spelling.encode(to: encoder) }
}

/// Everything the catalog knows about one trait: its types, attributes, commands, responses and events.
///
/// Builtin traits come from `Catalog/` (compiled into ``Catalog/builtin``); a driver announces a vendor trait
/// by sending its `TraitSchema` (JSON today, protobuf later) to ``Catalog/registerVendorTrait(_:)``.
public struct TraitSchema: Hashable, Sendable, Codable {
    public var id: TraitID
    /// The UpperCamelCase name without the `Trait` suffix (`OnOff`).
    public var name: String
    public var namespace: CatalogNamespace
    public var revision: Int
    public var description: String
    public var enums: [EnumSchema]
    public var bitmaps: [BitmapSchema]
    public var structs: [StructSchema]
    public var attributes: [AttributeSchema]
    public var commands: [CommandSchema]
    public var responses: [ResponseSchema]
    public var events: [EventSchema]

    public init(
        id: TraitID, name: String, namespace: CatalogNamespace, revision: Int = 1, description: String = "",
        enums: [EnumSchema] = [], bitmaps: [BitmapSchema] = [], structs: [StructSchema] = [],
        attributes: [AttributeSchema] = [], commands: [CommandSchema] = [], responses: [ResponseSchema] = [],
        events: [EventSchema] = []
    ) {
        self.id = id
        self.name = name
        self.namespace = namespace
        self.revision = revision
        self.description = description
        self.enums = enums
        self.bitmaps = bitmaps
        self.structs = structs
        self.attributes = attributes
        self.commands = commands
        self.responses = responses
        self.events = events
    }

    /// The attribute with `id`, if any.
    public func attribute(_ id: AttributeID) -> AttributeSchema? { attributes.first { $0.id == id } }
    /// The command with `id`, if any.
    public func command(_ id: CommandID) -> CommandSchema? { commands.first { $0.id == id } }
    /// The response named `name`, if any.
    public func response(named name: String) -> ResponseSchema? { responses.first { $0.name == name } }
    /// The event with `id`, if any.
    public func event(_ id: EventID) -> EventSchema? { events.first { $0.id == id } }
    /// The enum named `name`, if any.
    public func enumSchema(named name: String) -> EnumSchema? { enums.first { $0.name == name } }
    /// The bitmap named `name`, if any.
    public func bitmapSchema(named name: String) -> BitmapSchema? { bitmaps.first { $0.name == name } }
    /// The struct named `name`, if any.
    public func structSchema(named name: String) -> StructSchema? { structs.first { $0.name == name } }

    /// `Namespace.NameTrait (0x0006)`, for messages.
    public var displayName: String { "\(name) (\(id))" }
}

/// A device type: the traits it must carry and the ones it may carry.
public struct DeviceTypeSchema: Hashable, Sendable, Codable {
    public var id: DeviceTypeID
    /// The UpperCamelCase name without the `DeviceType` suffix (`OnOffLight`).
    public var name: String
    public var namespace: CatalogNamespace
    public var revision: Int
    public var description: String
    public var requiredTraits: [TraitID]
    public var optionalTraits: [TraitID]

    public init(
        id: DeviceTypeID, name: String, namespace: CatalogNamespace, revision: Int = 1, description: String = "",
        requiredTraits: [TraitID], optionalTraits: [TraitID] = []
    ) {
        self.id = id
        self.name = name
        self.namespace = namespace
        self.revision = revision
        self.description = description
        self.requiredTraits = requiredTraits
        self.optionalTraits = optionalTraits
    }

    /// Every trait the type may carry, required first.
    public var allTraits: [TraitID] { requiredTraits + optionalTraits }
}

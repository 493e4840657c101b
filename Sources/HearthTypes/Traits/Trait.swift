public import HearthModel

/// The state of one trait as the hub knows it: attribute values by id and connectivity.
public struct TraitData: Hashable, Sendable {
    public var attributes: [AttributeID: Value]
    public var metadata: TraitMetadata

    public init(attributes: [AttributeID: Value] = [:], metadata: TraitMetadata = TraitMetadata()) {
        self.attributes = attributes
        self.metadata = metadata
    }
}

/// What is known about a trait beyond its attributes.
public struct TraitMetadata: Hashable, Sendable {
    /// Whether the trait can be reached and where its data comes from.
    public var sourceConnectivity: SourceConnectivity

    public init(sourceConnectivity: SourceConnectivity = .unknown) {
        self.sourceConnectivity = sourceConnectivity
    }
}

/// A trait's attribute values with a typed property for each attribute (generated).
///
/// Clients read them (`light.matterTraits.onOffTrait?.attributes.onOff`); drivers set them to report
/// (`try await lamp.report(Matter.OnOffTrait.self) { $0.onOff = true }` with HearthDriverKit).
public protocol TraitAttributes: Sendable, Hashable {
    /// The values by attribute id.
    var values: [AttributeID: Value] { get set }
    init(values: [AttributeID: Value])
}

/// A trait's event (generated): `Matter.BooleanStateTrait.StateChangeEvent`. Drivers emit them.
public protocol TraitEvent: ValueConvertible, Hashable {
    /// The trait the event belongs to.
    associatedtype OwnerTrait: Trait
    /// The event's id within its trait.
    static var id: EventID { get }
}

/// A command's arguments (generated): `Matter.LevelControlTrait.MoveToLevelCommand`. Drivers receive them
/// decoded; clients call the trait's command methods instead.
public protocol TraitCommand: ValueConvertible, Hashable {
    /// The trait the command belongs to.
    associatedtype OwnerTrait: Trait
    /// The command's id within its trait.
    static var id: CommandID { get }
}

/// A typed trait: `Matter.OnOffTrait`, `Google.CameraAvStreamManagementTrait`, `ExampleOrganization.SpinnerTrait`.
///
/// Generated from the catalog. A value is a snapshot: its attributes do not change; commands and
/// ``update``-style writes go through its ``sender`` and the new state arrives as a new value.
///
/// ```swift
/// if let onOff = light.matterTraits.onOffTrait, onOff.attributes.onOff == false {
///     try await onOff.on()
/// }
/// ```
///
/// Every attribute reads both ways, with the same type and optionality: `onOff.attributes.onOff` and
/// `onOff.onOff` (the second through dynamic member lookup on ``attributes``, as the Home APIs' guides
/// write it). A trait member of the same name would win over an attribute; the catalog has none.
@dynamicMemberLookup
public protocol Trait: Sendable, Hashable {
    /// The typed view of the attributes.
    associatedtype Attributes: TraitAttributes

    /// The trait's id (a Matter cluster id, or manufacturer-specific).
    static var traitID: TraitID { get }
    /// The attribute values and metadata.
    var data: TraitData { get }
    /// Where commands and writes go; nil for a read-only snapshot.
    var sender: (any TraitCommandSender)? { get }
    /// The typed attributes.
    var attributes: Attributes { get }

    /// Makes a trait value from its data and, optionally, a sender.
    init(data: TraitData, sender: (any TraitCommandSender)?)
}

extension Trait {
    /// An attribute read straight off the trait: `levelControl.currentLevel` is
    /// `levelControl.attributes.currentLevel`.
    public subscript<V>(dynamicMember keyPath: KeyPath<Attributes, V>) -> V { attributes[keyPath: keyPath] }

    /// Connectivity and locality of this trait.
    public var metadata: TraitMetadata { data.metadata }

    /// The trait's schema in the builtin catalog.
    public static var schema: TraitSchema? { Catalog.builtin.trait(traitID) }

    /// Invokes a command by id after checking its arguments against the catalog (when the catalog knows the
    /// trait). Generated command methods call this.
    ///
    /// - Returns: the response's fields, or `.null`.
    /// - Throws: ``HearthModel/ValidationError``, ``TraitError`` `.noSender`, or what the sender throws.
    public func invoke(command: CommandID, fields: [FieldID: Value]) async throws -> Value {
        let value = Value.struct(fields)
        if Catalog.builtin.trait(Self.traitID) != nil {
            do {
                try Validator.builtin.validateCommand(trait: Self.traitID, command: command, fields: value)
            } catch {
                throw sender?.translate(error) ?? error
            }
        }
        guard let sender else { throw TraitError.noSender(trait: Self.traitID) }
        return try await sender.invoke(trait: Self.traitID, command: command, fields: value)
    }

    /// Writes attributes by id after checking them against the catalog (when the catalog knows the trait).
    ///
    /// - Throws: ``HearthModel/ValidationError``, ``TraitError`` `.noSender`, or what the sender throws.
    public func write(attributes: [AttributeID: Value]) async throws {
        guard !attributes.isEmpty else { return }
        if Catalog.builtin.trait(Self.traitID) != nil {
            do {
                try Validator.builtin.validateWrite(trait: Self.traitID, attributes: attributes)
            } catch {
                throw sender?.translate(error) ?? error
            }
        }
        guard let sender else { throw TraitError.noSender(trait: Self.traitID) }
        try await sender.write(trait: Self.traitID, attributes: attributes)
    }
}

public import HearthModel

/// What is known about a device type of a device beyond its traits.
public struct DeviceTypeMetadata: Hashable, Sendable {
    /// Whether this is the device's main type (a speaker that is also a light has one primary type).
    public var isPrimaryType: Bool
    /// The aggregate connectivity of the type's traits.
    public var sourceConnectivity: SourceConnectivity

    public init(isPrimaryType: Bool, sourceConnectivity: SourceConnectivity) {
        self.isPrimaryType = isPrimaryType
        self.sourceConnectivity = sourceConnectivity
    }

    /// Metadata whose connectivity aggregates the given traits'.
    public init(isPrimaryType: Bool, traits: TraitCollection) {
        self.isPrimaryType = isPrimaryType
        self.sourceConnectivity = .aggregate(traits.data.values.map(\.metadata.sourceConnectivity))
    }
}

/// A typed device type: `OnOffLightDeviceType`, `GoogleCameraDeviceType`…
///
/// Generated from the catalog. Standard traits are reached through ``matterTraits``, platform traits through
/// ``googleTraits``, and any trait (vendor ones too) through ``traits``.
///
/// ```swift
/// try await light.matterTraits.onOffTrait?.on()
/// let rpm = fan.traits[ExampleOrganization.SpinnerTrait.self]?.attributes.rpm
/// ```
public protocol DeviceType: Sendable, Hashable {
    /// One property per standard trait.
    associatedtype MatterTraits: Sendable, Hashable
    /// One property per platform trait.
    associatedtype GoogleTraits: Sendable, Hashable

    /// The device type's id.
    static var deviceTypeID: DeviceTypeID { get }
    /// All traits present, by type.
    var traits: TraitCollection { get }
    /// Primary-type flag and aggregate connectivity.
    var metadata: DeviceTypeMetadata { get }
    /// The standard traits.
    var matterTraits: MatterTraits { get }
    /// The platform traits.
    var googleTraits: GoogleTraits { get }

    init(traits: TraitCollection, metadata: DeviceTypeMetadata)
}

extension DeviceType {
    /// The device type's schema in the builtin catalog.
    public static var schema: DeviceTypeSchema? { Catalog.builtin.deviceType(deviceTypeID) }

    /// A device type whose metadata aggregates its traits' connectivity.
    public init(traits: TraitCollection, isPrimaryType: Bool = true) {
        self.init(traits: traits, metadata: DeviceTypeMetadata(isPrimaryType: isPrimaryType, traits: traits))
    }

    /// The ids of required traits the value lacks (empty for a complete device type).
    public var missingRequiredTraits: [TraitID] {
        (Self.schema?.requiredTraits ?? []).filter { !traits.traitIDs.contains($0) }
    }
}

public import HearthModel
import HearthProto
public import HearthTypes

/// A device's types; `collection[T.self]` gives one, or nil when the device lacks it.
///
/// It holds the device's types as the cache does (sharing its storage, the attributes still encoded) and
/// builds the typed values only when asked: a device that is listed or emitted but never opened costs no
/// second copy of its attributes.
public struct DeviceTypeCollection: Sendable, Hashable {
    /// One device type of the device: an endpoint with its traits, untyped (tools, vendor types).
    public struct Instance: Sendable, Hashable {
        /// The device type's id.
        public let deviceTypeID: DeviceTypeID
        /// The endpoint number.
        public let endpoint: UInt32
        /// Whether it is the device's primary type.
        public let isPrimary: Bool
        /// Its traits, bound to the hub.
        public let traits: TraitCollection
    }

    let types: CompactTypes
    let deviceID: String
    let home: Home

    init(device: CompactDevice, home: Home) {
        types = device.types
        deviceID = device.id
        self.home = home
    }

    /// Every device type of the device, in the hub's order (built on each call: keep the value when it is
    /// read often).
    public var instances: [Instance] { types.types.map { instance(types.compactType($0)) } }

    /// The device type `T`, or nil when the device lacks it (the primary instance first when there are
    /// several).
    public subscript<T: DeviceType>(_ type: T.Type) -> T? {
        let id = T.deviceTypeID.rawValue
        let all = types.types
        guard let found = all.first(where: { $0.deviceTypeID == id && $0.primary }) ?? all.first(where: { $0.deviceTypeID == id })
        else { return nil }
        return T(traits: instance(types.compactType(found)).traits, isPrimaryType: found.primary)
    }

    /// The data of trait `id` on the first of the device's types that carries it (in the hub's order), or nil
    /// when none does. Only that trait's attributes are decoded: a tool reading one trait (a vendor trait with
    /// no typed device type) of many devices does not pay for every trait of every type, as ``instances``
    /// would.
    public func traitData(_ id: TraitID) -> TraitData? {
        // Read in the buffer, nothing copied: a load client reads its probe trait this way for every device
        // delivered.
        guard let trait = types.firstTypesLastTrait(id.rawValue) else { return nil }
        return Self.data(
            values: CompactTrait.values(types.bytes[trait.attributes]), connectivity: trait.connectivity,
            locality: trait.locality)
    }

    /// The ids of the device types present.
    public var deviceTypeIDs: [DeviceTypeID] { types.types.map { DeviceTypeID($0.deviceTypeID) } }

    /// One type with its traits converted and bound to the hub.
    private func instance(_ type: CompactType) -> Instance {
        var data: [TraitID: TraitData] = [:]
        data.reserveCapacity(type.traits.count)
        for trait in type.traits { data[TraitID(trait.traitID)] = Self.data(trait) }
        let sender = HubSender(home: home, deviceID: deviceID, endpoint: type.endpoint)
        return Instance(
            deviceTypeID: DeviceTypeID(type.deviceTypeID), endpoint: type.endpoint, isPrimary: type.primary,
            traits: TraitCollection(data, sender: sender))
    }

    private static func data(_ trait: CompactTrait) -> TraitData {
        data(values: trait.values(), connectivity: trait.connectivity, locality: trait.locality)
    }

    private static func data(
        values: [AttributeID: Value], connectivity: Hearth_V1_ConnectivityState, locality: Hearth_V1_DataSourceLocality
    ) -> TraitData {
        TraitData(
            attributes: values,
            metadata: TraitMetadata(
                sourceConnectivity: SourceConnectivity(
                    connectivityState: ConnectivityState(proto: connectivity),
                    dataSourceLocality: DataSourceLocality(proto: locality))))
    }

    /// Equal when the types, their traits' values and connectivity are: the hub's revisions, the
    /// `confirmed` flag and the order of attributes within a trait are left out, as the typed values leave
    /// them out.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        let (a, b) = (lhs.types.bytes, rhs.types.bytes)
        return a == b
            || CompactTypes.zipTraits(lhs.types, rhs.types) { x, y in
                guard x.traitID == y.traitID, x.connectivityNumber == y.connectivityNumber, x.localityNumber == y.localityNumber
                else { return false }
                // The same attributes, perhaps in another order (or encoded otherwise).
                return a[x.attributes] == b[y.attributes] || CompactTrait.values(a[x.attributes]) == CompactTrait.values(b[y.attributes])
            }
    }

    public func hash(into hasher: inout Hasher) {
        for type in types.types {
            hasher.combine(type.endpoint)
            hasher.combine(type.deviceTypeID)
            hasher.combine(type.primary)
            for trait in types.traits(of: type) {
                hasher.combine(trait.traitID)
                hasher.combine(trait.connectivityNumber)
                hasher.combine(trait.localityNumber)
                // Order-insensitive, as == is.
                let values = CompactTrait.values(types.bytes[trait.attributes])
                hasher.combine(values.reduce(0) { $0 &+ $1.key.hashValue &* 31 &+ $1.value.hashValue })
            }
        }
    }
}

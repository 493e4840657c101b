public import HearthModel
import HearthProto
public import HearthTypes

/// A device as its driver announces it: a stable id, a suggested name, and one or more endpoints, each an
/// instance of a device type with its traits (as Matter endpoints are).
///
/// ```swift
/// let lamp = DeviceDescription(id: "lamp-1", name: "Desk lamp", endpoints: [
///     EndpointDescription(DimmableLightDeviceType.self, traits: [
///         .trait(Matter.IdentifyTrait.self) { $0.identifyTime = 0 },
///         .trait(Matter.OnOffTrait.self) { $0.onOff = false },
///         .trait(Matter.LevelControlTrait.self) { $0.currentLevel = 128 },
///     ]),
/// ])
/// ```
///
/// The id must be stable across restarts: the hub keys the user's name and room on it. The name is only a
/// suggestion, used when the hub first sees the device; after that the name belongs to the user.
public struct DeviceDescription: Sendable, Hashable {
    /// The driver's own id for the device (1 to 128 bytes, no `/`); the hub's id is `<driver>/<id>`.
    public var id: String
    /// The name the hub gives the device the first time it sees it.
    public var name: String
    /// The room the hub puts the device in the first time it sees it (created by name in the driver's
    /// structure if missing); nil leaves it unassigned. After that the room belongs to the user.
    public var room: String?
    /// Whether the device is a Matter device.
    public var isMatterDevice: Bool
    /// The device-type instances; at most one is primary.
    public var endpoints: [EndpointDescription]

    /// Describes a device.
    /// - Parameter basicInformation: the `Matter.BasicInformationTrait` (vendor, product, serial number,
    ///   versions), added to the primary endpoint (or the first one).
    /// - Parameter room: the room suggested for the device's first appearance (see ``room``).
    public init(
        id: String, name: String, room: String? = nil, isMatterDevice: Bool = true,
        basicInformation: TraitDescription? = nil, endpoints: [EndpointDescription]
    ) {
        self.id = id
        self.name = name
        self.room = room
        self.isMatterDevice = isMatterDevice
        self.endpoints = endpoints
        if let basicInformation, !endpoints.isEmpty {
            let index = endpoints.firstIndex(where: \.isPrimary) ?? 0
            self.endpoints[index].traits.append(basicInformation)
        }
    }

    var announcement: Hearth_V1_DeviceAnnouncement {
        var out = Hearth_V1_DeviceAnnouncement()
        out.id = id
        out.suggestedName = name
        out.suggestedRoom = room ?? ""
        out.isMatterDevice = isMatterDevice
        out.types = endpoints.map(\.announcement)
        return out
    }
}

/// One device-type instance of a device: an endpoint number, a device type, and its traits.
public struct EndpointDescription: Sendable, Hashable {
    /// The endpoint number, unique within the device.
    public var endpoint: UInt32
    /// The device type (a Matter device type id, or a vendor one).
    public var deviceTypeID: DeviceTypeID
    /// Whether this is the device's main type (a speaker that is also a light has one primary type).
    public var isPrimary: Bool
    /// The traits with their initial attribute values.
    public var traits: [TraitDescription]

    /// An endpoint of a generated device type: `EndpointDescription(OnOffLightDeviceType.self, traits: …)`.
    public init<D: DeviceType>(_ type: D.Type, endpoint: UInt32 = 1, primary: Bool = true, traits: [TraitDescription]) {
        self.init(deviceTypeID: D.deviceTypeID, endpoint: endpoint, primary: primary, traits: traits)
    }

    /// An endpoint by device type id (for vendor device types without generated code).
    public init(deviceTypeID: DeviceTypeID, endpoint: UInt32 = 1, primary: Bool = true, traits: [TraitDescription]) {
        self.endpoint = endpoint
        self.deviceTypeID = deviceTypeID
        self.isPrimary = primary
        self.traits = traits
    }

    var announcement: Hearth_V1_AnnouncedType {
        var out = Hearth_V1_AnnouncedType()
        out.endpoint = endpoint
        out.deviceTypeID = deviceTypeID.rawValue
        out.primary = isPrimary
        out.traits = traits.map(\.announcement)
        return out
    }
}

/// A trait of an endpoint: its id, attribute values and where its data comes from.
public struct TraitDescription: Sendable, Hashable {
    /// The trait's id.
    public var traitID: TraitID
    /// Attribute values by id: the initial values in a description, the current ones in a driver.
    public var attributes: [AttributeID: Value]
    /// Where the trait's data comes from: `.local` for the home network, `.remote` for a cloud.
    public var locality: DataSourceLocality
    /// Whether the driver can reach it now (a cut cloud link makes remote traits `.offline`).
    public var connectivity: ConnectivityState = .online

    /// A trait by id with raw values (vendor traits without generated code).
    public init(traitID: TraitID, attributes: [AttributeID: Value] = [:], locality: DataSourceLocality = .local) {
        self.traitID = traitID
        self.attributes = attributes
        self.locality = locality
    }

    /// A typed trait with its initial values: `.trait(Matter.OnOffTrait.self) { $0.onOff = true }`.
    public static func trait<T: Trait>(
        _ type: T.Type, locality: DataSourceLocality = .local, _ initial: (inout T.Attributes) -> Void = { _ in }
    ) -> TraitDescription {
        var attributes = T.Attributes(values: [:])
        initial(&attributes)
        return TraitDescription(traitID: T.traitID, attributes: attributes.values, locality: locality)
    }

    /// A complete `Matter.BasicInformationTrait`: every attribute Matter makes mandatory, plus the serial
    /// number and the optional ones given. Client code reads these as the Home APIs' guides do
    /// (`basicInformation.vendorID`, `.productID`, `.serialNumber`…).
    ///
    /// ```swift
    /// .basicInformation(vendorName: "Northlight", vendorID: 0xFFF1, productName: "Basic Bulb E27",
    ///                   productID: 0x1001, serialNumber: "NLB-3F9A0C21", softwareVersion: 0x0104_0200,
    ///                   softwareVersionString: "1.4.2")
    /// ```
    ///
    /// The values are checked against the catalog when the driver announces the device: names and labels
    /// of at most 32 characters (`productLabel` 64, `productURL` 256), version strings of 1 to 64,
    /// `location` two letters, `manufacturingDate` 8 to 16 characters starting YYYYMMDD.
    /// - Parameters:
    ///   - vendorID: the Matter vendor id; 0xFFF1...0xFFF4 are the test vendor ids a simulation should use.
    ///   - uniqueID: a persistent id that does not reveal the serial number; defaults to the serial number.
    ///   - dataModelRevision: 18 is Matter 1.4's, which the catalog follows.
    ///   - specificationVersion: 0x0104_0000 is Matter 1.4.0.
    public static func basicInformation(
        vendorName: String, vendorID: UInt16, productName: String, productID: UInt16, serialNumber: String,
        uniqueID: String? = nil, softwareVersion: UInt32 = 1, softwareVersionString: String = "1.0",
        hardwareVersion: UInt16 = 1, hardwareVersionString: String = "1.0", productLabel: String? = nil,
        partNumber: String? = nil, productURL: String? = nil, manufacturingDate: String? = nil,
        productAppearance: Matter.BasicInformationTrait.ProductAppearanceStruct? = nil, nodeLabel: String = "",
        location: String = "XX", dataModelRevision: UInt16 = 18, specificationVersion: UInt32 = 0x0104_0000,
        maxPathsPerInvoke: UInt16 = 1,
        capabilityMinima: Matter.BasicInformationTrait.CapabilityMinimaStruct = .init(
            caseSessionsPerFabric: 3, subscriptionsPerFabric: 3)
    ) -> TraitDescription {
        .trait(Matter.BasicInformationTrait.self) {
            $0.dataModelRevision = dataModelRevision
            $0.vendorName = vendorName
            $0.vendorID = vendorID
            $0.productName = productName
            $0.productID = productID
            $0.nodeLabel = nodeLabel
            $0.location = location
            $0.hardwareVersion = hardwareVersion
            $0.hardwareVersionString = hardwareVersionString
            $0.softwareVersion = softwareVersion
            $0.softwareVersionString = softwareVersionString
            $0.serialNumber = serialNumber
            $0.uniqueID = uniqueID ?? serialNumber
            $0.capabilityMinima = capabilityMinima
            $0.specificationVersion = specificationVersion
            $0.maxPathsPerInvoke = maxPathsPerInvoke
            if let productLabel { $0.productLabel = productLabel }
            if let partNumber { $0.partNumber = partNumber }
            if let productURL { $0.productURL = productURL }
            if let manufacturingDate { $0.manufacturingDate = manufacturingDate }
            if let productAppearance { $0.productAppearance = productAppearance }
        }
    }

    var announcement: Hearth_V1_AnnouncedTrait {
        var out = Hearth_V1_AnnouncedTrait()
        out.traitID = traitID.rawValue
        out.attributes = Self.proto(attributes)
        out.locality = locality.proto
        return out
    }

    static func proto(_ attributes: [AttributeID: Value]) -> [Hearth_V1_Attribute] {
        attributes.sorted { $0.key < $1.key }.map { id, value in
            var attribute = Hearth_V1_Attribute()
            attribute.id = id.rawValue
            attribute.value = value.proto
            return attribute
        }
    }
}

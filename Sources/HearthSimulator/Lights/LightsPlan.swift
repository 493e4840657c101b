public import HearthDriverKit
public import HearthModel
import HearthTypes

/// The kinds of device the lights driver simulates.
public enum LightKind: String, Sendable, Hashable, CaseIterable {
    case onOffLight, dimmableLight, colorTemperatureLight, extendedColorLight, plug

    /// What a light of this kind can do.
    public var features: LightModel.Features {
        switch self {
        case .onOffLight, .plug: .onOff
        case .dimmableLight: .dimmable
        case .colorTemperatureLight: .colorTemperature
        case .extendedColorLight: .extendedColor
        }
    }

    /// The device-type id announced for it.
    public var deviceTypeID: DeviceTypeID {
        switch self {
        case .onOffLight: OnOffLightDeviceType.deviceTypeID
        case .dimmableLight: DimmableLightDeviceType.deviceTypeID
        case .colorTemperatureLight: ColorTemperatureLightDeviceType.deviceTypeID
        case .extendedColorLight: ExtendedColorLightDeviceType.deviceTypeID
        case .plug: OnOffPluginUnitDeviceType.deviceTypeID
        }
    }

    var names: [String] {
        switch self {
        case .onOffLight: ["Ceiling light", "Porch light", "Closet light", "Hall light", "Wall light"]
        case .dimmableLight: ["Desk lamp", "Floor lamp", "Bedside lamp", "Reading lamp", "Pendant light"]
        case .colorTemperatureLight: ["Ceiling light", "Spotlights", "Vanity light", "Island lights", "Desk lamp"]
        case .extendedColorLight: ["Light strip", "Accent lamp", "TV backlight", "Mood light", "Globe lamp"]
        case .plug: ["Coffee maker", "Kettle", "Christmas tree", "Heater plug", "TV plug", "Fan plug"]
        }
    }

    var product: Product {
        switch self {
        case .onOffLight: Product(vendorName: "Northlight", vendorID: 0xFFF1, productName: "Basic Bulb E27", productID: 0x1001, serialPrefix: "NLB")
        case .dimmableLight: Product(vendorName: "Northlight", vendorID: 0xFFF1, productName: "Dim Bulb A60", productID: 0x1002, serialPrefix: "NLD")
        case .colorTemperatureLight: Product(vendorName: "Lumen & Co", vendorID: 0xFFF3, productName: "Tunable White GU10", productID: 0x2001, serialPrefix: "LCW")
        case .extendedColorLight: Product(vendorName: "Lumen & Co", vendorID: 0xFFF3, productName: "Color Strip 2m", productID: 0x2002, serialPrefix: "LCS")
        case .plug: Product(vendorName: "Outletry", vendorID: 0xFFF4, productName: "Smart Plug Mini", productID: 0x3001, serialPrefix: "OPM")
        }
    }

    /// How often the kind appears after the first devices (which show one of each).
    static let mix: [(LightKind, Double)] = [
        (.onOffLight, 0.15), (.dimmableLight, 0.3), (.colorTemperatureLight, 0.2), (.extendedColorLight, 0.2), (.plug, 0.15),
    ]
}

/// One device of the simulated lights: who it is, where, and how it starts.
public struct PlannedLight: Sendable, Hashable {
    /// Its place in the driver (0-based); the id is built from it.
    public var index: Int
    /// What kind of device it is.
    public var kind: LightKind
    /// `light-<index+1>`, or `plug-<index+1>` for plugs.
    public var id: String
    /// The suggested name.
    public var name: String
    /// The suggested room.
    public var room: String?
    /// What product it is (BasicInformation).
    public var product: Product
    /// Its serial number.
    public var serialNumber: String
    /// The traits its cloud carries (empty for a device that is local only).
    public var remoteTraits: [TraitID]
    /// Its state at start.
    public var model: LightModel

    /// The device as announced: one endpoint of its kind with Identify, OnOff and, as the kind has them,
    /// LevelControl and ColorControl.
    public var description: DeviceDescription {
        let features = kind.features
        let start = model.state(at: .now)
        func locality(_ trait: TraitID) -> DataSourceLocality { remoteTraits.contains(trait) ? .remote : .local }
        var traits: [TraitDescription] = [
            .trait(Matter.IdentifyTrait.self) {
                $0.identifyTime = 0
                $0.identifyType = kind == .plug ? .visibleIndicator : .lightOutput
            },
            .trait(Matter.OnOffTrait.self, locality: locality(Matter.OnOffTrait.traitID)) {
                $0.onOff = start.onOff
                guard kind != .plug else { return }
                $0.globalSceneControl = true
                $0.onTime = 0
                $0.offWaitTime = 0
                $0.startUpOnOff = nil
            },
        ]
        if features.level {
            traits.append(.trait(Matter.LevelControlTrait.self, locality: locality(Matter.LevelControlTrait.traitID)) {
                $0.currentLevel = start.level
                $0.remainingTime = 0
                $0.minLevel = features.levels.lowerBound
                $0.maxLevel = features.levels.upperBound
                $0.options = []
                $0.onOffTransitionTime = 0
                $0.onLevel = nil
                $0.defaultMoveRate = 50
            })
        }
        if features.hasColor {
            traits.append(.trait(Matter.ColorControlTrait.self, locality: locality(Matter.ColorControlTrait.traitID)) {
                var capabilities: Matter.ColorControlTrait.ColorCapabilitiesBitmap = []
                if features.hueSaturation { capabilities.insert(.hueSaturation) }
                if features.xy { capabilities.insert(.xy) }
                if features.colorTemperature { capabilities.insert(.colorTemperature) }
                $0.colorCapabilities = capabilities
                $0.setColor(start, features: features)
                $0.options = []
                $0.numberOfPrimaries = nil
                $0.remainingTime = 0
                if features.colorTemperature {
                    $0.colorTempPhysicalMinMireds = features.mireds.lowerBound
                    $0.colorTempPhysicalMaxMireds = features.mireds.upperBound
                    $0.coupleColorTempToLevelMinMireds = features.mireds.lowerBound
                    $0.startUpColorTemperatureMireds = nil
                }
            })
        }
        return DeviceDescription(
            id: id, name: name, room: room,
            basicInformation: product.basicInformation(serialNumber: serialNumber),
            endpoints: [EndpointDescription(deviceTypeID: kind.deviceTypeID, traits: traits)])
    }
}

/// The devices of the lights driver for a seed: the first five are one of each kind, the rest a seeded
/// mix. Device `i` is the same for a seed whatever the device count.
public enum LightsPlan {
    /// `count` devices for `seed`; a `remoteShare` of the dimmable and colour ones get their LevelControl
    /// (or ColorControl, when they have it) through a cloud.
    public static func devices(count: Int, seed: UInt64, remoteShare: Double, rooms: RoomPlan = RoomPlan()) -> [PlannedLight] {
        var names = DeviceNames()
        return (0..<max(count, 0)).map { index in
            var random = SeededGenerator(seed: seed, stream: "lights/\(index)")
            let kind = index < LightKind.allCases.count ? LightKind.allCases[index] : random.weighted(LightKind.mix)
            let room = rooms.room(for: index, using: &random)
            let name = names.name(kind.names.randomElement(using: &random)!, in: room)
            let isRemote = random.chance(remoteShare)
            let features = kind.features
            let remoteTraits: [TraitID] =
                !isRemote ? [] : features.hasColor ? [Matter.ColorControlTrait.traitID]
                : features.level ? [Matter.LevelControlTrait.traitID] : []
            let model = LightModel(
                features: features, onOff: random.chance(0.3), level: UInt8.random(in: 30...254, using: &random),
                mireds: UInt16.random(in: 200...454, using: &random), hue: UInt8.random(in: 0...253, using: &random),
                saturation: UInt8.random(in: 120...254, using: &random),
                x: UInt16.random(in: 10000...40000, using: &random), y: UInt16.random(in: 10000...40000, using: &random))
            return PlannedLight(
                index: index, kind: kind, id: "\(kind == .plug ? "plug" : "light")-\(index + 1)", name: name, room: room,
                product: kind.product, serialNumber: kind.product.serialNumber(using: &random),
                remoteTraits: remoteTraits, model: model)
        }
    }
}

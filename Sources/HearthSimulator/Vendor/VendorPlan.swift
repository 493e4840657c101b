public import HearthDriverKit
public import HearthModel
import HearthTypes

/// The kinds of device the vendor driver simulates.
public enum VendorKind: String, Sendable, Hashable, CaseIterable {
    /// The ExampleOrganization spinner: the vendor trait (announced with its schema) and an on/off switch.
    case spinner
    /// A speaker that is also a dimmable light: Speaker on endpoint 1 (primary; OnOff mutes, the level is
    /// the volume) and DimmableLight on endpoint 2.
    case speakerLight
    /// A mirror-ball light: a standard OnOffLight (Identify, OnOff) whose endpoint also carries the vendor
    /// trait, the ball's speed; it turns while the light is on. Read through the light's device type:
    /// `types[OnOffLightDeviceType.self]?.traits[ExampleOrganization.SpinnerTrait.self]`.
    case mirrorBall

    var names: [String] {
        switch self {
        case .spinner: ["Pottery wheel", "Display turntable", "Garden windmill", "Record player"]
        case .speakerLight: ["Speaker lamp", "Bedside speaker", "Lamp speaker"]
        case .mirrorBall: ["Mirror ball", "Disco ball", "Party light"]
        }
    }

    var product: Product {
        switch self {
        case .spinner: Product(vendorName: "Example Organization", vendorID: 0xFFF2, productName: "Spinner S1", productID: 0x8001, serialPrefix: "EXS")
        case .speakerLight: Product(vendorName: "Sonara", vendorID: 0xFFF1, productName: "Sonara Lamp Speaker", productID: 0x9001, serialPrefix: "SLS")
        case .mirrorBall: Product(vendorName: "Example Organization", vendorID: 0xFFF2, productName: "Mirror Ball M1", productID: 0x8002, serialPrefix: "EXM")
        }
    }

    /// The device id's prefix: `spinner-1`, `speaker-2`, `mirrorball-3`.
    var idPrefix: String {
        switch self {
        case .spinner: "spinner"
        case .speakerLight: "speaker"
        case .mirrorBall: "mirrorball"
        }
    }

    /// Whether it has the vendor trait (and so spins).
    var spins: Bool { self != .speakerLight }
}

/// One device of the simulated vendor driver.
public struct PlannedVendorDevice: Sendable, Hashable {
    /// Its place in the driver (0-based); the id is built from it.
    public var index: Int
    /// What kind of device it is.
    public var kind: VendorKind
    /// `spinner-<index+1>` or `speaker-<index+1>`.
    public var id: String
    /// The suggested name.
    public var name: String
    /// The suggested room.
    public var room: String?
    /// What product it is (BasicInformation).
    public var product: Product
    /// Its serial number.
    public var serialNumber: String
    /// Whether its cloud carries a trait: the vendor trait (spinner, mirror ball), or the speaker's volume.
    public var isRemote: Bool
    /// Starting values: the spinner's speed, or the speaker's volume and the light's level.
    public var rpm: UInt16
    /// The speaker's volume at start.
    public var volume: UInt8
    /// The lamp's level at start.
    public var lightLevel: UInt8
    /// Whether the spinner's switch (or the speaker's sound) is on at start.
    public var isOn: Bool

    /// The remote trait and its endpoint, if the device has one.
    public var remoteTrait: (trait: TraitID, endpoint: UInt32)? {
        guard isRemote else { return nil }
        return kind.spins ? (SpinnerSchema.traitID, 1) : (Matter.LevelControlTrait.traitID, 1)
    }

    /// The speaker endpoint's level range (a speaker may go down to 0).
    public static let speakerFeatures: LightModel.Features = {
        var features = LightModel.Features.dimmable
        features.levels = 0...254
        return features
    }()

    /// The device as announced.
    public var description: DeviceDescription {
        let info = product.basicInformation(serialNumber: serialNumber)
        switch kind {
        case .spinner:
            return DeviceDescription(
                id: id, name: name, room: room, isMatterDevice: false, basicInformation: info,
                endpoints: [
                    EndpointDescription(
                        deviceTypeID: SpinnerSchema.deviceTypeID,
                        traits: [
                            TraitDescription(
                                traitID: SpinnerSchema.traitID, attributes: [SpinnerSchema.rpm: .uint(UInt64(rpm))],
                                locality: isRemote ? .remote : .local),
                            .trait(Matter.OnOffTrait.self) { $0.onOff = isOn },
                        ])
                ])
        case .mirrorBall:
            return DeviceDescription(
                id: id, name: name, room: room, basicInformation: info,
                endpoints: [
                    EndpointDescription(
                        OnOffLightDeviceType.self,
                        traits: [
                            .trait(Matter.IdentifyTrait.self) {
                                $0.identifyTime = 0
                                $0.identifyType = .lightOutput
                            },
                            .trait(Matter.OnOffTrait.self) { $0.onOff = isOn },
                            TraitDescription(
                                traitID: SpinnerSchema.traitID, attributes: [SpinnerSchema.rpm: .uint(UInt64(rpm))],
                                locality: isRemote ? .remote : .local),
                        ])
                ])
        case .speakerLight:
            return DeviceDescription(
                id: id, name: name, room: room, basicInformation: info,
                endpoints: [
                    EndpointDescription(
                        SpeakerDeviceType.self, endpoint: 1, primary: true,
                        traits: [
                            .trait(Matter.OnOffTrait.self) { $0.onOff = isOn },
                            .trait(Matter.LevelControlTrait.self, locality: isRemote ? .remote : .local) {
                                $0.currentLevel = volume
                                $0.minLevel = Self.speakerFeatures.levels.lowerBound
                                $0.maxLevel = Self.speakerFeatures.levels.upperBound
                                $0.options = []
                                $0.onLevel = nil
                                $0.remainingTime = 0
                            },
                        ]),
                    EndpointDescription(
                        DimmableLightDeviceType.self, endpoint: 2, primary: false,
                        traits: [
                            .trait(Matter.IdentifyTrait.self) {
                                $0.identifyTime = 0
                                $0.identifyType = .lightOutput
                            },
                            .trait(Matter.OnOffTrait.self) {
                                $0.onOff = false
                                $0.onTime = 0
                                $0.offWaitTime = 0
                            },
                            .trait(Matter.LevelControlTrait.self) {
                                $0.currentLevel = lightLevel
                                $0.minLevel = 1
                                $0.maxLevel = 254
                                $0.options = []
                                $0.onLevel = nil
                                $0.remainingTime = 0
                                $0.onOffTransitionTime = 0
                                $0.defaultMoveRate = 50
                            },
                        ]),
                ])
        }
    }
}

/// The devices of the vendor driver for a seed: the first three are one of each kind, the rest a seeded mix.
public enum VendorPlan {
    /// `count` devices for `seed`; a `remoteShare` of them have a cloud-routed trait.
    public static func devices(count: Int, seed: UInt64, remoteShare: Double, rooms: RoomPlan = RoomPlan()) -> [PlannedVendorDevice] {
        var names = DeviceNames()
        return (0..<max(count, 0)).map { index in
            var random = SeededGenerator(seed: seed, stream: "vendor/\(index)")
            let kind = index < VendorKind.allCases.count ? VendorKind.allCases[index] : random.weighted([(.spinner, 0.4), (.speakerLight, 0.4), (.mirrorBall, 0.2)])
            let room = rooms.room(for: index, using: &random)
            let name = names.name(kind.names.randomElement(using: &random)!, in: room)
            return PlannedVendorDevice(
                index: index, kind: kind, id: "\(kind.idPrefix)-\(index + 1)", name: name,
                room: room, product: kind.product, serialNumber: kind.product.serialNumber(using: &random),
                isRemote: random.chance(remoteShare), rpm: UInt16.random(in: 0...1200, using: &random) / 10 * 10,
                volume: UInt8.random(in: 40...180, using: &random), lightLevel: UInt8.random(in: 20...254, using: &random),
                isOn: random.chance(0.7))
        }
    }
}

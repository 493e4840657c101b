public import HearthTypes
import HearthModel
import HearthSimulator

/// One simulated camera or doorbell: what it is, where, and what it can do. Drawn from the seed by
/// ``CameraProfile/plan(devices:seed:)``: the same seed and index give the same device.
public struct CameraProfile: Sendable, Hashable {
    public typealias Settings = Google.CameraAvStreamManagementTrait
    public typealias Transport = Google.PushAvStreamTransportTrait

    /// A camera, or a doorbell (which is a camera with a button).
    public enum Kind: String, Sendable, Hashable {
        case camera, doorbell
    }

    /// The driver's id: `camera-<index>` or `doorbell-<index>`.
    public var id: String
    public var kind: Kind
    /// The suggested name (`Driveway camera`, `Front door doorbell`).
    public var name: String
    /// The suggested room.
    public var room: String
    /// Whether it sits outdoors (infrared night vision, an outdoor product name).
    public var outdoor: Bool
    /// Talkback support: doorbells always have a speaker, some cameras do not.
    public var talk: Settings.TwoWayTalkSupportTypeEnum
    /// The sensor size in pixels (the full viewport).
    public var width: UInt16
    public var height: UInt16
    /// The serial number.
    public var serial: String
    /// The push transports configured at start.
    public var transports: [Transport.TransportConfigurationStruct]

    static let cameraRooms = ["Front yard", "Driveway", "Backyard", "Living room", "Garage", "Nursery", "Hallway", "Patio"]
    static let outdoorRooms: Set<String> = ["Front yard", "Driveway", "Backyard", "Patio", "Front door", "Back door", "Side gate"]
    static let doorbellRooms = ["Front door", "Back door", "Side gate"]

    /// The devices of a simulation: device 0 is a camera and device 1 a doorbell; after that about one in
    /// four is a doorbell. The first devices of each kind take one room each, then rooms repeat (and names
    /// get a number).
    public static func plan(devices: Int, seed: UInt64) -> [CameraProfile] {
        var rooms = SeededGenerator(seed: seed, stream: "camera-rooms")
        var counts: [Kind: Int] = [:]
        var names: [String: Int] = [:]
        return (0..<max(0, devices)).map { index in
            var generator = SeededGenerator(seed: seed, stream: "camera-\(index)")
            let draw = Double.random(in: 0..<1, using: &generator)
            let kind: Kind = index == 0 ? .camera : index == 1 ? .doorbell : draw < 0.25 ? .doorbell : .camera
            let ordinal = counts[kind, default: 0]
            counts[kind] = ordinal + 1
            let plan = RoomPlan(rooms: kind == .camera ? cameraRooms : doorbellRooms)
            let room = plan.room(for: ordinal, using: &rooms) ?? "Hallway"
            var name = "\(room) \(kind.rawValue)"
            let repeats = names[name, default: 0] + 1
            names[name] = repeats
            if repeats > 1 { name += " \(repeats)" }
            return CameraProfile(index: index, kind: kind, name: name, room: room, using: &generator)
        }
    }

    init(index: Int, kind: Kind, name: String, room: String, using generator: inout SeededGenerator) {
        id = "\(kind.rawValue)-\(index)"
        self.kind = kind
        self.name = name
        self.room = room
        outdoor = Self.outdoorRooms.contains(room)
        switch kind {
        case .doorbell:
            talk = Bool.random(using: &generator) ? .fullDuplex : .halfDuplex
            (width, height) = (1600, 1200)
        case .camera:
            let draw = Int.random(in: 0..<10, using: &generator)
            talk = draw < 5 ? .fullDuplex : draw < 8 ? .halfDuplex : .notSupported
            (width, height) = [(1920, 1080), (2560, 1440), (3840, 2160)].randomElement(using: &generator)!
        }
        serial = "HC" + String(UInt32.random(in: 0x1000_0000...UInt32.max, using: &generator), radix: 16, uppercase: true)
        let recording = Transport.TransportConfigurationStruct(
            connectionID: 1, transportStatus: Int.random(in: 0..<5, using: &generator) == 0 ? .inactive : .active,
            transportOptions: Self.options(
                id: id, usage: .recording, trigger: .motion,
                sensitivity: [1, 5, 10].randomElement(using: &generator)!,
                maxDuration: [10, 15, 30, 60, 120, 180].randomElement(using: &generator)!))
        transports = [recording]
        if Bool.random(using: &generator) {
            transports.append(
                .init(
                    connectionID: 2, transportStatus: .inactive,
                    transportOptions: Self.options(id: id, usage: .analysis, trigger: .command, sensitivity: nil, maxDuration: 30)))
        }
    }

    /// Transport options as a camera's app would configure them.
    public static func options(
        id: String, usage: Transport.StreamUsageEnum, trigger: Transport.TransportTriggerTypeEnum, sensitivity: UInt8?,
        maxDuration: UInt32
    ) -> Transport.TransportOptionsStruct {
        Transport.TransportOptionsStruct(
            streamUsage: usage, videoStreamID: 1, audioStreamID: 1, tlsEndpointID: 1,
            url: "https://ingest.hearth.example/\(id)/\(usage)",
            triggerOptions: .init(
                triggerType: trigger, motionZones: nil, motionSensitivity: sensitivity,
                motionTimeControl: .init(initialDuration: 10, augmentationDuration: 5, maxDuration: maxDuration, blindDuration: 5),
                maxPreRollLen: 4000),
            ingestMethod: .cmafIngest,
            containerOptions: .init(
                containerType: .cmaf,
                cmafContainerOptions: .init(
                    cmafInterface: .interface1, segmentDuration: 4000, chunkDuration: 1000, sessionGroup: 1, trackName: "main")))
    }

    /// The media the camera can send and receive.
    public var capabilities: MediaCapabilities { MediaCapabilities(receivesAudio: talk != .notSupported) }
}

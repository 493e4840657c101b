public import HearthDriverKit
public import ServiceLifecycle

/// The simulation behind `hearth-driver-lights`: a seeded home of on/off, dimmable, colour-temperature and
/// colour lights and plugs whose level and colour changes take their transition time.
///
/// ```swift
/// let simulation = LightsSimulation(configuration: .init(devices: 20, seed: 7), cloud: cloud)
/// simulation.install(on: driver)
/// try await DriverMain.run(driver, alongside: simulation.services, logger: logger)
/// ```
public final class LightsSimulation: Sendable {
    /// What to simulate; each default is documented beside it.
    public struct Configuration: Sendable {
        /// How many devices.
        public var devices: Int
        /// The seed: the same seed gives the same devices, names, rooms and starting values. Default 1.
        public var seed: UInt64 = 1
        /// Share of the dimmable and colour devices whose LevelControl or ColorControl is cloud-routed.
        /// Default 0.25.
        public var remoteShare: Double = 0.25
        /// The rooms devices are suggested into. Default ``RoomPlan/home``.
        public var rooms = RoomPlan()
        /// How often running transitions report their values. Default 100 ms.
        public var tick: Duration = .milliseconds(100)

        /// `devices` devices with the other settings at their defaults.
        public init(devices: Int, seed: UInt64 = 1) {
            self.devices = devices
            self.seed = seed
        }

        /// The settings of the shared simulator command line.
        public init(_ options: SimulatorOptions) {
            self.init(devices: options.devices, seed: options.seed)
            remoteShare = options.remoteShare
        }
    }

    /// The devices, in order.
    public let devices: [PlannedLight]
    /// The lights' behaviour (transitions, commands, reports).
    public let lighting: LightingEngine
    /// The Identify countdowns.
    public let identifying = Identifying()
    /// The cloud link the remote traits follow.
    public let cloud: CloudLink
    let configuration: Configuration

    /// The simulation of `configuration`; nothing happens until ``install(on:)``.
    public init(configuration: Configuration, cloud: CloudLink) {
        self.configuration = configuration
        self.cloud = cloud
        devices = LightsPlan.devices(
            count: configuration.devices, seed: configuration.seed, remoteShare: configuration.remoteShare,
            rooms: configuration.rooms)
        lighting = LightingEngine(cloud: cloud)
    }

    /// Adds the devices to `driver`, registers their handlers, and ties their remote traits to the cloud.
    public func install(on driver: Driver) {
        lighting.install(on: driver)
        identifying.install(on: driver)
        for light in devices {
            let device = driver.add(light.description)
            lighting.add(device, endpoint: 1, model: light.model)
            for trait in light.remoteTraits { cloud.add(device, trait: trait, endpoint: 1) }
        }
    }

    /// The services to run beside the driver: the transition clock, the Identify clock and the cloud link.
    public var services: [any Service] {
        [lighting.clock(every: configuration.tick), identifying.clock(), cloud]
    }
}

public import HearthDriverKit
import HearthTypes
public import ServiceLifecycle
import Synchronization

/// The simulation behind `hearth-driver-climate`: a seeded home of thermostats, temperature, humidity,
/// occupancy and contact sensors, fans and door locks. Sensors drift on their own clock, occupancy and
/// contact flip now and then (with their events), thermostats warm or cool the room towards the
/// setpoint, fans spin up to their setting, and locks answer lock and unlock (with a PIN when one is given).
///
/// ```swift
/// let simulation = ClimateSimulation(configuration: .init(devices: 20, seed: 7), cloud: cloud)
/// simulation.install(on: driver)
/// try await DriverMain.run(driver, alongside: simulation.services, logger: logger)
/// ```
public final class ClimateSimulation: Sendable {
    /// What to simulate; each default is documented beside it.
    public struct Configuration: Sendable {
        /// How many devices.
        public var devices: Int
        /// The seed: the same seed gives the same devices, names, rooms and values. Default 1.
        public var seed: UInt64 = 1
        /// Share of devices whose main trait is cloud-routed. Default 0.25.
        public var remoteShare: Double = 0.25
        /// The rooms devices are suggested into. Default ``RoomPlan/home``.
        public var rooms = RoomPlan()
        /// How often sensors and thermostats take a step. Default 5 s.
        public var driftInterval: Duration = .seconds(5)
        /// How often fans follow their setting and locks relock by themselves. Default 200 ms.
        public var tick: Duration = .milliseconds(200)
        /// The chance that an occupancy sensor flips at a drift step. Default 0.15.
        public var occupancyChance = 0.15
        /// The chance that a contact sensor flips at a drift step. Default 0.08.
        public var contactChance = 0.08
        /// The PIN the locks take when a command carries one (commands without a PIN are accepted).
        /// Default "1234".
        public var lockPIN = "1234"

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

    struct Installed: Sendable {
        var plan: PlannedClimateDevice
        var device: DriverDevice
    }

    struct State: Sendable {
        var installed: [Installed] = []
        /// The simulation's randomness after the start (drift, flips), one sequence for all devices.
        var random: SeededGenerator
        /// When unlocked locks lock themselves again, by device id.
        var relockAt: [String: ContinuousClock.Instant] = [:]
    }

    /// The devices, in order.
    public let devices: [PlannedClimateDevice]
    /// The Identify countdowns.
    public let identifying = Identifying()
    /// The cloud link the remote traits follow.
    public let cloud: CloudLink
    let configuration: Configuration
    let state: Mutex<State>

    /// The simulation of `configuration`; nothing happens until ``install(on:)``.
    public init(configuration: Configuration, cloud: CloudLink) {
        self.configuration = configuration
        self.cloud = cloud
        devices = ClimatePlan.devices(
            count: configuration.devices, seed: configuration.seed, remoteShare: configuration.remoteShare,
            rooms: configuration.rooms)
        state = Mutex(State(random: SeededGenerator(seed: configuration.seed, stream: "climate/drift")))
    }

    /// Adds the devices to `driver`, registers their handlers, and ties their remote traits to the cloud.
    public func install(on driver: Driver) {
        identifying.install(on: driver)
        installThermostats(on: driver)
        installFans(on: driver)
        installLocks(on: driver)
        let installed = devices.map { plan in
            let device = driver.add(plan.description)
            if plan.isRemote { cloud.add(device, trait: plan.kind.mainTrait, endpoint: 1) }
            return Installed(plan: plan, device: device)
        }
        state.withLock { $0.installed = installed }
    }

    /// The services to run beside the driver: the drift clock, the fan and lock clock, the Identify clock
    /// and the cloud link.
    public var services: [any Service] {
        [
            Periodic(every: configuration.driftInterval) { [self] _ in drift() },
            Periodic(every: configuration.tick) { [self] now in tick(at: now) },
            identifying.clock(), cloud,
        ]
    }
}

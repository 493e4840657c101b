public import HearthDriverKit
public import HearthModel
import HearthTypes
import HearthWire
public import ServiceLifecycle
import Synchronization

/// The simulation behind `hearth-driver-vendor`: ExampleOrganization spinners, whose vendor trait the
/// driver announces with its schema at run time; speakers that are also dimmable lights (two device
/// types on two endpoints, each command routed by endpoint); and mirror balls, standard on/off lights that
/// also carry the vendor trait.
///
/// ```swift
/// var configuration = try options.configuration()
/// configuration.vendorTraitSchemas = VendorSimulation.vendorTraitSchemas
/// let driver = Driver(configuration: configuration)
/// let simulation = VendorSimulation(configuration: .init(devices: 4), cloud: cloud)
/// simulation.install(on: driver)
/// ```
public final class VendorSimulation: Sendable {
    /// What to simulate; each default is documented beside it.
    public struct Configuration: Sendable {
        /// How many devices.
        public var devices: Int
        /// The seed: the same seed gives the same devices, names, rooms and values. Default 1.
        public var seed: UInt64 = 1
        /// Share of devices with a cloud-routed trait (the spinner's, or the speaker's volume). Default 0.25.
        public var remoteShare: Double = 0.25
        /// The rooms devices are suggested into. Default ``RoomPlan/home``.
        public var rooms = RoomPlan()
        /// How often running level transitions report. Default 100 ms.
        public var tick: Duration = .milliseconds(100)
        /// How often spinners report their speed. Default 1 s.
        public var spinInterval: Duration = .seconds(1)

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

    /// The schemas to put in `Driver.Configuration.vendorTraitSchemas`.
    public static let vendorTraitSchemas: [TraitSchema] = [SpinnerSchema.schema]

    struct Spinner: Sendable {
        var device: DriverDevice
        var model: SpinnerModel
    }

    struct State: Sendable {
        var spinners: [String: Spinner] = [:]
        var random: SeededGenerator
        var lastSpin: ContinuousClock.Instant?
    }

    /// The devices, in order.
    public let devices: [PlannedVendorDevice]
    /// OnOff and LevelControl of the speakers, their lights and the spinners' switches.
    public let lighting: LightingEngine
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
        devices = VendorPlan.devices(
            count: configuration.devices, seed: configuration.seed, remoteShare: configuration.remoteShare,
            rooms: configuration.rooms)
        lighting = LightingEngine(cloud: cloud)
        state = Mutex(State(random: SeededGenerator(seed: configuration.seed, stream: "vendor/spin")))
    }

    /// Adds the devices to `driver` (whose configuration should carry ``vendorTraitSchemas``), registers
    /// the handlers, and ties the remote traits to the cloud.
    public func install(on driver: Driver) {
        lighting.install(on: driver)
        identifying.install(on: driver)
        installSpinners(on: driver)
        for plan in devices {
            let device = driver.add(plan.description)
            switch plan.kind {
            case .spinner, .mirrorBall:
                lighting.add(device, endpoint: 1, model: LightModel(features: .onOff, onOff: plan.isOn))
                state.withLock { $0.spinners[plan.id] = Spinner(device: device, model: SpinnerModel(rpm: plan.rpm)) }
            case .speakerLight:
                lighting.add(
                    device, endpoint: 1,
                    model: LightModel(features: PlannedVendorDevice.speakerFeatures, onOff: plan.isOn, level: plan.volume))
                lighting.add(device, endpoint: 2, model: LightModel(features: .dimmable, onOff: false, level: plan.lightLevel))
            }
            if let remote = plan.remoteTrait { cloud.add(device, trait: remote.trait, endpoint: remote.endpoint) }
        }
    }

    /// spinUp aims a spinner at a speed (reached over time); a write of rpm sets the speed at once. The hub
    /// has already checked both against the schema (at most 3000 rpm).
    private func installSpinners(on driver: Driver) {
        driver.onCommand(trait: SpinnerSchema.traitID, command: SpinnerSchema.spinUp) { [self] context in
            guard case .uint(let rpm)? = context.fields[SpinnerSchema.targetRPM], rpm <= UInt64(SpinnerSchema.maxRPM) else {
                throw RPCError(code: .invalidArgument, message: "spinUp needs targetRpm from 0 to \(SpinnerSchema.maxRPM)")
            }
            try state.withLock { s throws(RPCError) in
                guard s.spinners[context.device.id] != nil else {
                    throw RPCError(code: .notFound, message: "\(context.device.id) is not a spinner")
                }
                s.spinners[context.device.id]?.model.spin(to: UInt16(rpm))
            }
            return .null
        }
        // DriverKit takes write handlers by generated trait type only; ExampleOrganization.SpinnerTrait has
        // the same id as the announced schema. The written value is stored and reported after this returns.
        driver.onWrite(ExampleOrganization.SpinnerTrait.self) { [self] written, context in
            guard let rpm = written.rpm else { return }
            state.withLock { $0.spinners[context.device.id]?.model.set(rpm: rpm) }
        }
    }

    /// One spinner step: each speeds towards its target (or spins down while off) and reports its speed,
    /// unless its trait is remote and the cloud link is cut.
    public func spin(at now: ContinuousClock.Instant) {
        state.withLock { s in
            let elapsed = s.lastSpin.map { now - $0 } ?? configuration.spinInterval
            s.lastSpin = now
            for id in s.spinners.keys.sorted() {
                guard var spinner = s.spinners[id] else { continue }
                let isOn = (try? spinner.device.attributes(Matter.OnOffTrait.self).onOff) ?? true
                let rpm = spinner.model.step(elapsed: elapsed, isOn: isOn, using: &s.random)
                s.spinners[id] = spinner
                guard cloud.isReachable(device: id, trait: SpinnerSchema.traitID, endpoint: 1) else { continue }
                try? spinner.device.report(trait: SpinnerSchema.traitID, endpoint: 1, [SpinnerSchema.rpm: .uint(UInt64(rpm))])
            }
        }
    }

    /// The services to run beside the driver: the transition clock, the spinner clock, the Identify clock
    /// and the cloud link.
    public var services: [any Service] {
        [
            lighting.clock(every: configuration.tick),
            Periodic(every: configuration.spinInterval) { [self] now in spin(at: now) },
            identifying.clock(), cloud,
        ]
    }
}

public import HearthDriverKit
public import HearthSimulator
public import Logging
public import ServiceLifecycle
import HearthModel
import HearthTypes
import Synchronization

/// Simulated cameras and doorbells on a driver: live-view sessions answered with real SDP, push transports,
/// settings, doorbell presses, and cloud-routed platform traits.
///
/// ```swift
/// let driver = Driver(configuration: try options.configuration())
/// let cloud = CloudLink(options)
/// let cameras = CameraSimulation(driver: driver, configuration: .init(options), cloud: cloud, logger: logger)
/// try await DriverMain.run(driver, alongside: cameras.services, logger: logger)
/// ```
///
/// Creating it adds the devices to the driver and registers the handlers; ``services`` are its clock (session
/// expiry, the end of triggered pushes), the doorbell presses and the cloud link, to run beside the driver.
/// The simulation does not keep the driver, only its devices, so the driver's handlers can keep it.
public final class CameraSimulation: Sendable {
    /// What to simulate; each default is documented beside it.
    public struct Configuration: Sendable {
        /// How many devices (cameras and doorbells). Default 4.
        public var devices = 4
        /// The seed: the same seed gives the same devices. Default 1.
        public var seed: UInt64 = 1
        /// Seconds a live-view session lives unless extended. Default 300.
        public var liveSessionSeconds: UInt32 = 300
        /// Live-view sessions per camera at once. Default 4.
        public var maxLiveSessions = 4
        /// Mean time between presses of some doorbell; nil: never. Default 300 s.
        public var pressEvery: Duration? = .seconds(300)
        /// How often the clock expires sessions and ends pushes. Default 1 s.
        public var tick: Duration = .seconds(1)

        /// The defaults.
        public static var defaults: Configuration { Configuration() }

        public init() {}

        /// The shared simulator options (devices, seed) with the camera's own.
        public init(_ options: SimulatorOptions, liveSessionSeconds: UInt32 = 300, pressEvery seconds: Double = 300) {
            devices = options.devices
            seed = options.seed
            self.liveSessionSeconds = liveSessionSeconds
            pressEvery = seconds > 0 ? .milliseconds(Int(seconds * 1000)) : nil
        }
    }

    /// One device's live state.
    struct Camera: Sendable {
        var profile: CameraProfile
        var device: DriverDevice
        var sessions: LiveViewSessions
        var transports: PushTransports
        var answerer: SDPAnswerer
    }

    /// The configuration it runs with.
    public let configuration: Configuration
    /// The devices, in index order.
    public let profiles: [CameraProfile]
    /// The link the platform traits follow.
    public let cloud: CloudLink
    let logger: Logger
    let cameras: Mutex<[String: Camera]>
    let counters = Mutex(Counters())

    /// How many commands and writes reached the simulation's handlers (refused or not).
    public struct Counters: Sendable, Hashable {
        public var commands = 0
        public var writes = 0
    }

    /// Adds the devices to `driver`, registers their remote traits with `cloud`, and installs the handlers.
    public init(driver: Driver, configuration: Configuration, cloud: CloudLink, logger: Logger = Logger(label: "hearth.driver.camera")) {
        self.configuration = configuration
        self.cloud = cloud
        self.logger = logger
        profiles = CameraProfile.plan(devices: configuration.devices, seed: configuration.seed)
        var cameras: [String: Camera] = [:]
        for profile in profiles {
            let device = driver.add(profile.deviceDescription)
            for trait in profile.remoteTraits { cloud.add(device, trait: trait) }
            cameras[profile.id] = Camera(
                profile: profile, device: device,
                sessions: LiveViewSessions(
                    duration: .seconds(Int(configuration.liveSessionSeconds)), limit: configuration.maxLiveSessions,
                    supportsTalkback: profile.talk != .notSupported),
                transports: PushTransports(connections: profile.transports),
                answerer: SDPAnswerer(capabilities: profile.capabilities))
        }
        self.cameras = Mutex(cameras)
        installLiveView(driver)
        installTransports(driver)
        installSettings(driver)
    }

    /// The services to run beside the driver: the clock, the cloud link, and the doorbell presses when
    /// there are doorbells and ``Configuration/pressEvery`` is set.
    public var services: [any Service] {
        var services: [any Service] = [Periodic(every: configuration.tick) { [self] now in tick(now: now) }, cloud]
        if let every = configuration.pressEvery, profiles.contains(where: { $0.kind == .doorbell }) {
            services.append(DoorbellPresses(every: every, seed: configuration.seed, simulation: self))
        }
        return services
    }

    /// The commands and writes seen so far.
    public var counts: Counters { counters.withLock { $0 } }

    /// The live sessions of a camera now.
    public func liveSessions(_ id: String, at now: ContinuousClock.Instant = .now) -> [LiveViewSessions.Session] {
        cameras.withLock { $0[id]?.sessions.live(at: now) ?? [] }
    }

    /// The sessions a camera holds, including expired ones the clock has not removed yet.
    public func heldSessions(_ id: String) -> Int { cameras.withLock { $0[id]?.sessions.count ?? 0 } }

    /// Whether a camera records (a push connection is active).
    public func isRecording(_ id: String) -> Bool { cameras.withLock { $0[id]?.transports.isRecording ?? false } }

    /// Presses a doorbell now: emits `doorbellPressed`.
    /// - Throws: NOT_FOUND for an unknown id or a camera; UNAVAILABLE while the cloud link is cut (the
    ///   press cannot reach the hub).
    public func press(_ id: String) throws(CameraError) {
        let profile = profiles.first { $0.id == id && $0.kind == .doorbell }
        guard let profile, let device = cameras.withLock({ $0[profile.id]?.device }) else {
            throw CameraError(.notFound, "no doorbell \(id)")
        }
        guard cloud.isUp else { throw CameraError(.unavailable, "the doorbell's cloud cannot be reached") }
        do {
            try device.emit(Google.DoorbellPressTrait.DoorbellPressedEvent())
        } catch {
            throw CameraError(.notFound, "\(error)")
        }
        logger.debug("camera.doorbell.pressed", metadata: ["device": "\(id)"])
    }

    /// One step of the clock: removes expired sessions and ends triggered pushes whose time is up.
    func tick(now: ContinuousClock.Instant) {
        let results = cameras.withLock { cameras in
            var results: [(DriverDevice, [LiveViewSessions.Session], [PushTransports.Event])] = []
            for id in cameras.keys.sorted() {
                let expired = cameras[id]!.sessions.expire(now: now)
                let ended = cameras[id]!.transports.endPushes(now: now)
                guard !expired.isEmpty || !ended.isEmpty else { continue }
                results.append((cameras[id]!.device, expired, ended))
            }
            return results
        }
        for (device, expired, ended) in results {
            for session in expired {
                logger.debug("camera.session.expired", metadata: ["device": "\(device.id)", "session": "\(session.id)"])
            }
            emit(ended, on: device)
        }
    }

    /// Emits push transport events.
    func emit(_ events: [PushTransports.Event], on device: DriverDevice) {
        for event in events {
            switch event {
            case .begin(let begin): try? device.emit(begin)
            case .end(let end): try? device.emit(end)
            }
        }
    }

    /// Runs `body` on a camera's state, counting the command and checking the cloud link first.
    func withCamera<R: Sendable>(_ id: String, _ body: (inout Camera) throws(CameraError) -> R) throws(CameraError) -> R {
        counters.withLock { $0.commands += 1 }
        return try cameras.withLock { cameras throws(CameraError) -> R in
            guard cameras[id] != nil else { throw CameraError(.notFound, "no camera \(id)") }
            return try body(&cameras[id]!)
        }
    }
}

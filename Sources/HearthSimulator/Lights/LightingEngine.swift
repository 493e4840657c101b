public import HearthDriverKit
import HearthModel
import HearthTypes
import HearthWire
import Synchronization

/// Runs simulated lights for a driver: handles the OnOff, LevelControl and ColorControl commands of every
/// registered endpoint, lets level and colour changes take their transition time, and reports the values
/// on its clock (every 100 ms by default) until they settle.
///
/// Anything with OnOff can be registered: a plug, a speaker (OnOff mutes, the level is the volume), the
/// light endpoint of a speaker that is also a light. Commands are routed by device and endpoint.
///
/// ```swift
/// let lighting = LightingEngine(cloud: cloud)
/// lighting.install(on: driver)
/// lighting.add(driver.add(description), endpoint: 1, model: LightModel(features: .dimmable, onOff: false))
/// services.append(lighting.clock(every: .milliseconds(100)))
/// ```
public final class LightingEngine: Sendable {
    /// Where a simulated light is: a device and an endpoint.
    public struct Key: Hashable, Sendable {
        /// The driver's id of the device.
        public var device: String
        /// The endpoint of the light.
        public var endpoint: UInt32

        /// The light on `endpoint` of `device`.
        public init(device: String, endpoint: UInt32) {
            self.device = device
            self.endpoint = endpoint
        }
    }

    struct Lamp: Sendable {
        let device: DriverDevice
        var model: LightModel
    }

    struct State: Sendable {
        var lamps: [Key: Lamp] = [:]
        /// Lamps whose values change without a command, or whose last report was held back.
        var active: Set<Key> = []
    }

    let state = Mutex(State())
    let cloud: CloudLink

    /// An engine with no lights; remote traits follow `cloud`.
    public init(cloud: CloudLink) { self.cloud = cloud }

    /// Registers the light on `endpoint` of a driver's device, and reports the model's values.
    public func add(_ device: DriverDevice, endpoint: UInt32 = 1, model: LightModel) {
        let key = Key(device: device.id, endpoint: endpoint)
        state.withLock { s in
            s.lamps[key] = Lamp(device: device, model: model)
            s.active.insert(key)
        }
    }

    /// The light's model now (for tests and tools).
    public func model(_ key: Key) -> LightModel? { state.withLock { $0.lamps[key]?.model } }

    /// Advances every light with something running to `now` and reports its values.
    public func tick(at now: ContinuousClock.Instant) {
        state.withLock { s in
            for key in s.active {
                guard var lamp = s.lamps[key] else {
                    s.active.remove(key)
                    continue
                }
                lamp.model.advance(to: now)
                s.lamps[key] = lamp
                let complete = report(lamp, key, at: now)
                if complete, !lamp.model.isActive { s.active.remove(key) }
            }
        }
    }

    /// The engine's clock, to run beside the driver.
    public func clock(every interval: Duration = .milliseconds(100)) -> Periodic {
        Periodic(every: interval) { [self] now in tick(at: now) }
    }

    /// Runs a command on the light the context addresses: refuses it with UNAVAILABLE when its trait is
    /// remote and the cloud link is cut, NOT_FOUND when no light is there, then changes the model and
    /// reports, all under the engine's lock so reports keep the order of the changes.
    func run(
        _ context: CommandContext, _ body: (inout LightModel, DriverDevice, ContinuousClock.Instant) throws -> Void
    ) throws {
        let key = Key(device: context.device.id, endpoint: context.endpoint)
        let now = ContinuousClock.now
        try state.withLock { s in
            guard var lamp = s.lamps[key] else {
                throw RPCError(code: .notFound, message: "no light on endpoint \(context.endpoint) of \(context.device.id)")
            }
            try body(&lamp.model, lamp.device, now)
            s.lamps[key] = lamp
            let complete = report(lamp, key, at: now)
            if !complete || lamp.model.isActive { s.active.insert(key) }
        }
    }

    /// Reports the lamp's values; false when a remote trait's report was held back by a cut link.
    private func report(_ lamp: Lamp, _ key: Key, at now: ContinuousClock.Instant) -> Bool {
        let values = lamp.model.state(at: now)
        let features = lamp.model.features
        var complete = true
        func reachable(_ trait: TraitID) -> Bool {
            let ok = cloud.isReachable(device: key.device, trait: trait, endpoint: key.endpoint)
            if !ok { complete = false }
            return ok
        }
        // One change of the lamp: its traits leave in one report, one revision at the hub.
        lamp.device.reportTogether { device in
            if reachable(Matter.OnOffTrait.traitID) {
                try? device.report(Matter.OnOffTrait.self, endpoint: key.endpoint) {
                    $0.onOff = values.onOff
                    if $0.values[Matter.OnOffTrait.AttributeIDs.onTime] != nil {
                        $0.onTime = values.onTime
                        $0.offWaitTime = values.offWaitTime
                    }
                }
            }
            if features.level, reachable(Matter.LevelControlTrait.traitID) {
                try? device.report(Matter.LevelControlTrait.self, endpoint: key.endpoint) {
                    $0.currentLevel = values.level
                    $0.remainingTime = values.levelRemaining
                }
            }
            if features.hasColor, reachable(Matter.ColorControlTrait.traitID) {
                try? device.report(Matter.ColorControlTrait.self, endpoint: key.endpoint) {
                    $0.setColor(values, features: features)
                    $0.remainingTime = values.colorRemaining
                }
            }
        }
        return complete
    }
}

extension Matter.ColorControlTrait.Attributes {
    /// The colour a lamp shows in `state`: its mode, and the coordinates of each colour space it has.
    mutating func setColor(_ state: LightState, features: LightModel.Features) {
        colorMode = state.colorMode
        enhancedColorMode = Matter.ColorControlTrait.EnhancedColorModeEnum(rawValue: state.colorMode.rawValue)
        if features.colorTemperature { colorTemperatureMireds = state.mireds }
        if features.hueSaturation {
            currentHue = state.hue
            currentSaturation = state.saturation
        }
        if features.xy {
            currentX = state.x
            currentY = state.y
        }
    }
}

public import HearthDriverKit
import HearthModel
import HearthTypes
import Synchronization

/// The Identify trait of simulated devices: `identify(identifyTime:)` (or a write of `identifyTime`) starts
/// a countdown the device reports once a second until 0; `triggerEffect` identifies for a few seconds.
///
/// ```swift
/// let identifying = Identifying()
/// identifying.install(on: driver)
/// services.append(identifying.clock())
/// ```
public final class Identifying: Sendable {
    struct Key: Hashable {
        var device: String
        var endpoint: UInt32
    }

    /// Devices identifying now, with the seconds left.
    private let counting = Mutex<[Key: (device: DriverDevice, left: UInt16)]>([:])

    /// Nothing identifies yet.
    public init() {}

    /// Handles the Identify commands and writes of every device of `driver`.
    public func install(on driver: Driver) {
        driver.onCommand(Matter.IdentifyTrait.IdentifyCommand.self) { [self] command, context in
            try start(context.device, endpoint: context.endpoint, seconds: command.identifyTime)
        }
        driver.onCommand(Matter.IdentifyTrait.TriggerEffectCommand.self) { [self] command, context in
            let stop = command.effectIdentifier == .stopEffect || command.effectIdentifier == .finishEffect
            try start(context.device, endpoint: context.endpoint, seconds: stop ? 0 : 3)
        }
        driver.onWrite(Matter.IdentifyTrait.self) { [self] attributes, context in
            guard let seconds = attributes.identifyTime else { return }
            track(context.device, endpoint: context.endpoint, seconds: seconds)
        }
    }

    /// Starts (or with 0 stops) identifying and reports it.
    func start(_ device: DriverDevice, endpoint: UInt32, seconds: UInt16) throws {
        try device.report(Matter.IdentifyTrait.self, endpoint: endpoint) { $0.identifyTime = seconds }
        track(device, endpoint: endpoint, seconds: seconds)
    }

    private func track(_ device: DriverDevice, endpoint: UInt32, seconds: UInt16) {
        counting.withLock { counting in
            let key = Key(device: device.id, endpoint: endpoint)
            counting[key] = seconds > 0 ? (device, seconds) : nil
        }
    }

    /// Counts every identifying device down by one second and reports the time left.
    public func tick() {
        counting.withLock { counting in
            for (key, entry) in counting {
                let left = entry.left - 1
                try? entry.device.report(Matter.IdentifyTrait.self, endpoint: key.endpoint) { $0.identifyTime = left }
                counting[key] = left > 0 ? (entry.device, left) : nil
            }
        }
    }

    /// The once-a-second clock of the countdowns, to run beside the driver.
    public func clock() -> Periodic {
        Periodic(every: .seconds(1)) { [self] _ in tick() }
    }
}

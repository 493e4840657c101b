import Foundation
import HearthCameraSim
import HearthDriverKit
import HearthModel
import HearthProto
import HearthSimulator
import HearthTypes
import HearthWire
import ServiceLifecycle
import SwiftProtobuf

/// Runs the camera simulation in process against the test hub: its driver (token `Tokens.camera`) and its
/// services (clock, cloud link, doorbell presses) run while `body` runs, and are stopped afterwards.
///
/// Defaults for tests: 3 devices (camera-0, doorbell-1, and one more), seed 1, no automatic presses, a 50 ms
/// clock, a cloud link that only `set(up:)` cuts.
func withCameraSimulation<T: Sendable>(
    _ client: HubClient, configure: (inout CameraSimulation.Configuration) -> Void = { _ in },
    _ body: (CameraSimulation) async throws -> T
) async throws -> T {
    var driverConfiguration = Driver.Configuration(hub: .tcp(host: "127.0.0.1", port: client.port), token: Tokens.camera)
    driverConfiguration.reconnect = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
    let driver = Driver(configuration: driverConfiguration)
    var configuration = CameraSimulation.Configuration()
    configuration.devices = 3
    configuration.pressEvery = nil
    configuration.tick = .milliseconds(50)
    configure(&configuration)
    let simulation = CameraSimulation(
        driver: driver, configuration: configuration, cloud: CloudLink(every: nil, length: .seconds(1)))
    let services = simulation.services
    return try await withThrowingTaskGroup(of: Void.self) { group in
        for service in services { group.addTask { try await service.run() } }
        defer { group.cancelAll() }
        return try await withDriver(driver) { try await body(simulation) }
    }
}

/// Polls `condition` every 20 ms until it holds or `limit` passes; returns whether it held.
func pollUntil(within limit: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

extension HubClient {
    /// Sends a typed command to endpoint 1 of `device` through the hub and returns the response fields.
    @discardableResult
    func invokeCommand<C: TraitCommand>(_ command: C, on device: String) async throws -> [FieldID: Value] {
        let response = try await call(
            HomeMethods.sendCommand,
            .with {
                $0.deviceID = device
                $0.endpoint = 1
                $0.traitID = C.OwnerTrait.traitID.rawValue
                $0.commandID = C.id.rawValue
                $0.fields = Value.protoStruct(command.value.structFields ?? [:])
            })
        return Value.fields(of: response.fields)
    }

    /// Sends a typed command and decodes its typed response.
    func invokeCommand<C: TraitCommand, R: ValueConvertible>(_ command: C, on device: String, expecting: R.Type)
        async throws -> R
    {
        let fields = try await invokeCommand(command, on: device)
        guard let response = R(value: .struct(fields)) else {
            throw HarnessError(description: "the response \(fields) does not decode as \(R.self)")
        }
        return response
    }

    /// Writes the attributes `body` sets on a trait of endpoint 1 of `device` through the hub.
    func writeAttributes<T: Trait>(_ trait: T.Type, on device: String, _ body: (inout T.Attributes) -> Void)
        async throws
    {
        var attributes = T.Attributes(values: [:])
        body(&attributes)
        _ = try await call(
            HomeMethods.writeAttributes,
            .with {
                $0.deviceID = device
                $0.endpoint = 1
                $0.traitID = T.traitID.rawValue
                $0.attributes = attributes.values.sorted { $0.key < $1.key }.map { id, value in
                    .with {
                        $0.id = id.rawValue
                        $0.value = value.proto
                    }
                }
            })
    }
}

extension Hearth_V1_Device {
    /// A trait's attributes as the hub shows them, typed; nil when the device lacks the trait.
    func typedAttributes<T: Trait>(_ trait: T.Type) -> T.Attributes? {
        guard let state = self.trait(T.traitID.rawValue) else { return nil }
        var values: [AttributeID: Value] = [:]
        for attribute in state.attributes { values[AttributeID(attribute.id)] = Value(proto: attribute.value) }
        return T.Attributes(values: values)
    }
}

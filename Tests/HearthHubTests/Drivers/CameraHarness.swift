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
    let driver = Driver.simulated(Tokens.camera, port: client.port)
    var configuration = CameraSimulation.Configuration()
    configuration.devices = 3
    configuration.pressEvery = nil
    configuration.tick = .milliseconds(50)
    configure(&configuration)
    let simulation = CameraSimulation(
        driver: driver, configuration: configuration, cloud: CloudLink(every: nil, length: .seconds(1)))
    return try await withSimulation(driver, services: simulation.services) {
        try await body(simulation)
    }
}

extension HubClient {
    /// Sends a typed command to endpoint 1 of `device` through the hub and returns the response fields.
    @discardableResult
    func invokeCommand<C: TraitCommand>(_ command: C, on device: String) async throws -> [FieldID: Value] {
        Value.fields(of: try await send(device, command).fields)
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
        try await write(device, trait: T.traitID, attributes.values)
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

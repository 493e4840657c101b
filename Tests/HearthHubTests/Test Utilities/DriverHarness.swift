import Foundation
import HearthDriverKit
import HearthModel
import HearthProto
import HearthTypes
import HearthWire

/// Runs `driver` while `body` runs, then stops it and waits for it to end.
func withDriver<T: Sendable>(_ driver: Driver, _ body: () async throws -> T) async throws -> T {
    let running = Task { try await driver.run() }
    do {
        let result = try await body()
        driver.stop()
        try await running.value
        return result
    } catch {
        running.cancel()
        _ = try? await running.value
        throw error
    }
}

extension Driver {
    /// A driver for the test hub's `lights` token, reconnecting quickly.
    static func lights(
        _ target: WireClient.Target, token: String = Tokens.lights, vendorTraitSchemas: [TraitSchema] = [],
        handlerExecution: Driver.Configuration.HandlerExecution = .eventLoop
    ) -> Driver {
        var configuration = Driver.Configuration(hub: target, token: token)
        configuration.reconnect = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
        configuration.vendorTraitSchemas = vendorTraitSchemas
        configuration.handlerExecution = handlerExecution
        return Driver(configuration: configuration)
    }
}

/// A dimmable light (Identify, OnOff, LevelControl on endpoint 1).
func dimmableLight(_ id: String, name: String = "Lamp") -> DeviceDescription {
    DeviceDescription(
        id: id, name: name,
        basicInformation: .basicInformation(
            vendorName: "Hearth", vendorID: 0xFFF1, productName: "Test lamp", productID: 0x0001, serialNumber: id),
        endpoints: [
            EndpointDescription(DimmableLightDeviceType.self, traits: [
                .trait(Matter.IdentifyTrait.self) { $0.identifyTime = 0 },
                .trait(Matter.OnOffTrait.self) { $0.onOff = false },
                .trait(Matter.LevelControlTrait.self) { $0.currentLevel = 10 },
            ])
        ])
}

/// A contact sensor (Identify, BooleanState on endpoint 1), its BooleanState cloud-routed when `remoteState`.
func contactSensor(_ id: String, remoteState: Bool = false) -> DeviceDescription {
    DeviceDescription(id: id, name: "Door", endpoints: [
        EndpointDescription(ContactSensorDeviceType.self, traits: [
            .trait(Matter.IdentifyTrait.self) { $0.identifyTime = 0 },
            .trait(Matter.BooleanStateTrait.self, locality: remoteState ? .remote : .local) { $0.stateValue = true },
        ])
    ])
}

extension HubClient {
    /// Watches from 0 until `predicate` holds for the newest version of device `id`.
    @discardableResult
    func waitForDevice(
        _ id: String, token: String = Tokens.admin, _ predicate: @escaping @Sendable (Hearth_V1_Device) -> Bool
    ) async throws -> Hearth_V1_Device {
        let seen = try await watch(.from(0), token: token, limit: 100_000) { seen in
            guard seen.synced, let device = seen.deviceState(id) else { return false }
            return predicate(device)
        }
        guard let device = seen.deviceState(id), predicate(device) else {
            throw HarnessError(description: "device \(id) never matched")
        }
        return device
    }
}

extension Array where Element == Hearth_V1_WatchResponse {
    /// The device as the stream shows it now: its last whole version with later trait changes applied.
    func deviceState(_ id: String) -> Hearth_V1_Device? {
        var device: Hearth_V1_Device?
        for change in changes {
            switch change.kind {
            case .device(let d) where d.id == id: device = d
            case .deviceRemoved(let removed) where removed == id: device = nil
            case .trait(let t) where t.deviceID == id:
                guard var d = device, let type = d.types.firstIndex(where: { $0.endpoint == t.endpoint }),
                    let trait = d.types[type].traits.firstIndex(where: { $0.traitID == t.state.traitID })
                else { continue }
                d.types[type].traits[trait] = t.state
                device = d
            default: continue
            }
        }
        return device
    }
}

extension Hearth_V1_Device {
    /// An attribute's value, from the first endpoint that has the trait unless `endpoint` is given.
    func attribute(_ trait: UInt32, _ attribute: UInt32, endpoint: UInt32? = nil) -> Value? {
        for type in types where endpoint == nil || type.endpoint == endpoint {
            if let t = type.traits.first(where: { $0.traitID == trait }),
                let a = t.attributes.first(where: { $0.id == attribute })
            {
                return Value(proto: a.value)
            }
        }
        return nil
    }

    func trait(_ trait: UInt32, endpoint: UInt32? = nil) -> Hearth_V1_TraitState? {
        types.lazy.filter { endpoint == nil || $0.endpoint == endpoint }.compactMap { $0.traits.first { $0.traitID == trait } }.first
    }
}

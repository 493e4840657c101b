import Foundation
import HearthDriverKit
import HearthModel
import HearthProto
import HearthSimulator
import HearthTypes
import HearthWire
import ServiceLifecycle
import SwiftProtobuf

/// Runs a simulated driver and its simulation's services (clocks, cloud link) while `body` runs, then stops
/// the driver (``withDriver(_:_:)``) and the services.
func withSimulation<T: Sendable>(_ driver: Driver, services: [any Service], _ body: () async throws -> T)
    async throws -> T
{
    try await withThrowingTaskGroup(of: Void.self) { group in
        for service in services { group.addTask { try await service.run() } }
        defer { group.cancelAll() }
        return try await withDriver(driver, body)
    }
}

extension Driver {
    /// A driver for one of the test hub's driver tokens, reconnecting quickly.
    static func simulated(
        _ token: String, port: Int, vendorTraitSchemas: [TraitSchema] = []
    ) -> Driver {
        lights(.tcp(host: "127.0.0.1", port: port), token: token, vendorTraitSchemas: vendorTraitSchemas)
    }
}

extension HubClient {
    /// Sends a typed command to `device` (a hub id such as `lights/light-2`).
    @discardableResult
    func send<C: TraitCommand>(_ device: String, endpoint: UInt32 = 1, _ command: C) async throws -> Hearth_V1_SendCommandResponse {
        try await call(HomeMethods.sendCommand, .with {
            $0.deviceID = device
            $0.endpoint = endpoint
            $0.traitID = C.OwnerTrait.traitID.rawValue
            $0.commandID = C.id.rawValue
            $0.fields = Value.protoStruct(command.value.structFields ?? [:])
        })
    }

    /// Writes attributes of one trait of `device`.
    func write(_ device: String, endpoint: UInt32 = 1, trait: TraitID, _ attributes: [AttributeID: Value]) async throws {
        _ = try await call(HomeMethods.writeAttributes, .with {
            $0.deviceID = device
            $0.endpoint = endpoint
            $0.traitID = trait.rawValue
            $0.attributes = attributes.sorted { $0.key < $1.key }.map { id, value in
                .with {
                    $0.id = id.rawValue
                    $0.value = value.proto
                }
            }
        })
    }

    /// The hub's revision and epoch now, to watch what happens next.
    func mark() async throws -> Hearth_V1_WatchRequest {
        let hub = try await call(HomeMethods.getHub, .init())
        return .from(hub.revision, epoch: hub.epoch)
    }
}

extension Array where Element == Hearth_V1_WatchResponse {
    /// The values one attribute took in the trait changes of a device, in order.
    func values(_ device: String, endpoint: UInt32 = 1, trait: TraitID, attribute: AttributeID) -> [Value] {
        changes.compactMap { change in
            guard case .trait(let t) = change.kind, t.deviceID == device, t.endpoint == endpoint,
                t.state.traitID == trait.rawValue,
                let a = t.state.attributes.first(where: { $0.id == attribute.rawValue })
            else { return nil }
            return Value(proto: a.value)
        }
    }

    /// The events of one trait of a device, in order.
    func events(_ device: String, trait: TraitID) -> [Hearth_V1_Event] {
        changes.compactMap { change in
            guard case .event(let e) = change.kind, e.deviceID == device, e.traitID == trait.rawValue else { return nil }
            return e
        }
    }
}


extension HubClient {
    /// Watches from 0 until every device of `ids` exists and `predicate` holds for each; returns them in
    /// the order of `ids`.
    @discardableResult
    func waitForDevices(
        _ ids: [String], _ predicate: @escaping @Sendable (Hearth_V1_Device) -> Bool
    ) async throws -> [Hearth_V1_Device] {
        let seen = try await watch(.from(0), limit: 1_000_000) { seen in
            seen.synced && ids.allSatisfy { id in seen.deviceState(id).map(predicate) ?? false }
        }
        let devices = ids.compactMap { seen.deviceState($0) }
        guard devices.count == ids.count, devices.allSatisfy(predicate) else {
            throw HarnessError(description: "devices \(ids) never all matched")
        }
        return devices
    }
}

extension Array where Element == Hearth_V1_WatchResponse {
    /// The devices of one driver as the stream shows them now.
    func driverDevices(_ driverID: String) -> [Hearth_V1_Device] {
        var ids: [String] = []
        for change in changes {
            if case .device(let d) = change.kind, d.driverID == driverID, !ids.contains(d.id) { ids.append(d.id) }
        }
        return ids.compactMap { deviceState($0) }
    }
}

extension Hearth_V1_Device {
    /// Connectivity and locality aggregated over the traits as the stream shows them now. The device's own
    /// `connectivity` and `locality` come only with whole-device changes; a trait report that changes a
    /// trait's connectivity (a cloud cut) arrives as a trait change, so a watcher aggregates itself.
    var aggregate: SourceConnectivity {
        SourceConnectivity.aggregate(
            types.flatMap(\.traits).map {
                SourceConnectivity(
                    connectivityState: ConnectivityState(proto: $0.connectivity),
                    dataSourceLocality: DataSourceLocality(proto: $0.locality))
            })
    }
}

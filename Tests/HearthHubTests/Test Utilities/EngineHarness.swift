import Foundation
@testable import HearthHub
import HearthModel
import HearthProto
import HearthTesting
import SwiftProtobuf
import Synchronization

/// A running engine over a fresh data directory, without sockets; stopped afterwards.
func withEngine<T: Sendable>(
    configure: (inout HubEngine.Configuration) -> Void = { _ in }, _ body: (HubEngine) async throws -> T
) async throws -> T {
    try await withTemporaryDirectory { dir in
        var configuration = HubEngine.Configuration(dataDirectory: dir)
        configure(&configuration)
        let engine = try await HubEngine.open(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            defer { group.cancelAll() }
            return try await body(engine)
        }
    }
}

/// One in-process watch: its decoded responses, in order, as they are sent.
struct EngineWatcher: Sendable {
    let responses: AsyncStream<Hearth_V1_WatchResponse>
    let task: Task<Void, any Error>

    /// Starts `engine.watch`; `gate`, if given, holds every send after the synced mark until it opens.
    init(
        _ engine: HubEngine, _ request: Hearth_V1_WatchRequest = .from(0),
        as user: UserAccess = UserAccess(user: "admin", role: .admin, structures: nil),
        configuration: WatchStream.Configuration = .init(), gate: Gate? = nil
    ) {
        let (responses, continuation) = AsyncStream<Hearth_V1_WatchResponse>.makeStream()
        let synced = Mutex(false)
        self.responses = responses
        task = Task {
            defer { continuation.finish() }
            try await engine.watch(request, as: user, configuration: configuration) { bytes in
                if let gate, synced.withLock({ $0 }) { await gate.wait() }
                let response = try Hearth_V1_WatchResponse(serializedBytes: bytes)
                if response.synced { synced.withLock { $0 = true } }
                continuation.yield(response)
            }
        }
    }

    /// Responses until one carries `revision` or later, at most 20 s. (Snapshot parts before the synced
    /// mark carry revision 0, so a snapshot is always read whole.)
    func collect(through revision: UInt64) async throws -> [Hearth_V1_WatchResponse] {
        try await withThrowingTaskGroup(of: [Hearth_V1_WatchResponse]?.self) { group in
            group.addTask {
                var seen: [Hearth_V1_WatchResponse] = []
                for await response in responses {
                    seen.append(response)
                    if response.revision >= revision { return seen }
                }
                return seen
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                return nil
            }
            defer { group.cancelAll() }
            guard let seen = try await group.next()! else {
                throw HarnessError(description: "watch did not reach revision \(revision) in 20 s")
            }
            return seen
        }
    }

    func stop() { task.cancel() }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

/// A device with a light on endpoint 1 and a contact sensor on endpoint 2.
func lampWithSensor(_ id: String) -> Hearth_V1_DeviceAnnouncement {
    var device = onOffLight(id)
    device.types.append(.with {
        $0.endpoint = 2
        $0.deviceTypeID = 0x0015
        $0.traits = [
            .with { $0.traitID = 0x0003; $0.attributes = [.with { $0.id = 0; $0.value = Value.uint(0).proto }] },
            .with { $0.traitID = 0x0045; $0.attributes = [.with { $0.id = 0; $0.value = Value.bool(true).proto }] },
        ]
    })
    return device
}

/// A contact sensor alone.
func contactSensorAnnouncement(_ id: String) -> Hearth_V1_DeviceAnnouncement {
    var device = lampWithSensor(id)
    device.types.removeFirst()
    device.types[0].endpoint = 1
    device.types[0].primary = true
    device.suggestedName = "Door"
    return device
}

extension HubEngine {
    /// Reports one trait's attributes as `driver`, expecting no rejection.
    func report(_ driver: String, _ device: String, endpoint: UInt32 = 1, trait: UInt32, _ attributes: [UInt32: Value])
        async throws
    {
        let rejected = try await report(driver: driver, .with {
            $0.traits = [.with {
                $0.deviceID = device
                $0.endpoint = endpoint
                $0.traitID = trait
                $0.attributes = attributes.sorted { $0.key < $1.key }.map { id, value in
                    .with { $0.id = id; $0.value = value.proto }
                }
            }]
        })
        if let first = rejected.first { throw HarnessError(description: "report rejected: \(first)") }
    }
}

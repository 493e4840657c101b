import Foundation
@testable import HearthHub
import HearthModel
import HearthProto
import HearthWire
import SwiftProtobuf
import Synchronization
import Testing

/// `update_interval_ms`: the least time between two responses that carry changes.
@Suite("Watch: the update interval")
struct HubWatchIntervalTests {
    @Test("changes that come within the interval leave together, none lost, responses at least the interval apart")
    func gathersWithinInterval() async throws {
        try await withEngine { engine in
            _ = await engine.driverConnected("lights")
            _ = try await engine.announce(driver: "lights", .with { $0.devices = [lampWithSensor("lamp")] })
            let sent = Mutex<[(at: ContinuousClock.Instant, response: Hearth_V1_WatchResponse)]>([])
            let request = Hearth_V1_WatchRequest.with { $0.updateIntervalMs = 1000 }
            let watch = Task {
                try await engine.watch(request, as: HubEngineWatchTests.admin) { bytes in
                    let response = try Hearth_V1_WatchResponse(serializedBytes: bytes)
                    sent.withLock { $0.append((.now, response)) }
                }
            }
            defer { watch.cancel() }
            _ = try await eventually { sent.withLock { $0.contains { $0.response.synced } } ? true : nil }

            for level in 1...20 {
                try await engine.report("lights", "lamp", trait: 0x0003, [0: .uint(UInt64(level))])
            }
            try await engine.awaitCommit()
            let end = await engine.info().revision
            _ = try await eventually { sent.withLock { $0.last.map { $0.response.revision >= end } ?? false } ? true : nil }

            let live = sent.withLock { all in Array(all.drop { !$0.response.synced }.dropFirst()) }
                .filter { !$0.response.changes.isEmpty }
            let levels = live.flatMap(\.response.changes)
                .filter { $0.trait.state.traitID == 0x0003 && $0.trait.endpoint == 1 }
                .map { $0.trait.state.attributes.first?.value.uintValue }
            #expect(levels == (1...20).map { UInt64($0) }, "every change, in order")
            // Twenty responses would need the reports, made back to back in memory, to span 19 intervals (19 s).
            #expect(live.count < 20, "the changes were gathered")
            for (earlier, later) in zip(live, live.dropFirst()) {
                // A lower bound the hub keeps (it sleeps until then), not a speed: no slowness can break it.
                #expect(later.at - earlier.at >= .milliseconds(1000), "responses closer than the interval")
            }
        }
    }

    @Test("an interval above 1000 ms is refused with INVALID_ARGUMENT")
    func refusesLongInterval() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                await expectStatus(.invalidArgument) {
                    try await client.wire.serverStreaming(
                        HomeMethods.watch, request: .with { $0.updateIntervalMs = 1001 },
                        options: HubClient.options(Tokens.admin)
                    ) { stream in
                        for try await _ in stream {}
                    }
                }
            }
        }
    }
}

@testable import HearthHub
import HearthModel
import HearthProto
import SwiftProtobuf
import Testing

/// Drivers cannot outrun SQLite without bound: past maxPendingChanges a report waits for the commit.
@Suite("Engine back-pressure on driver reports")
struct HubEngineBackPressureTests {
    @Test("below the limit a report returns at once; past it, only once its changes are committed")
    func reportsWaitPastTheLimit() async throws {
        try await withEngine(configure: { $0.maxPendingChanges = 20 }) { engine in
            _ = await engine.driverConnected("lights")
            let lamps = (0..<50).map { lampWithSensor("lamp-\($0)") }
            _ = try await engine.announce(driver: "lights", .with { $0.devices = lamps })
            // One report touching 50 traits: 50 pending changes, past the limit of 20.
            let rejected = try await engine.report(driver: "lights", .with {
                $0.traits = (0..<50).map { index in
                    .with {
                        $0.deviceID = "lamp-\(index)"
                        $0.endpoint = 1
                        $0.traitID = 0x0006
                        $0.attributes = [.with { $0.id = 0; $0.value = Value.bool(true).proto }]
                    }
                }
            })
            #expect(rejected.isEmpty)
            let afterReport = await engine.upcomingRevision - 1
            #expect(await engine.info().revision == afterReport, "the report returned only after its commit")
        }
    }

    @Test("the limit is never more than half the retained change log, so one commit cannot evict unread changes")
    func limitIsCapped() async throws {
        try await withEngine(configure: {
            $0.retainedChanges = 100
            $0.maxPendingChanges = 1_000
        }) { engine in
            #expect(engine.maxPendingChanges == 50)
        }
    }
}

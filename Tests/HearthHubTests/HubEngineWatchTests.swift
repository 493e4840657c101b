import Foundation
@testable import HearthHub
import HearthModel
import HearthProto
import HearthTesting
import SwiftProtobuf
import Testing

/// Watch semantics that need control over a watcher's pace or many watchers at once, run on the engine in
/// process (the wire path is covered by HubWatchTests).
@Suite("Watch fan-out: slow watchers, filters, devices leaving a watcher's view")
struct HubEngineWatchTests {
    static let admin = UserAccess(user: "admin", role: .admin, structures: nil)

    @Test("a slow watcher gets state coalesced to the newest values and every event; a fast one gets every change")
    func slowWatcherCoalesces() async throws {
        try await withEngine { engine in
            _ = await engine.driverConnected("lights")
            _ = try await engine.announce(driver: "lights", .with { $0.devices = [lampWithSensor("lamp")] })
            var small = WatchStream.Configuration()
            small.batchEntries = 4
            small.coalesceAbove = 16
            let gate = Gate()
            let slow = EngineWatcher(engine, configuration: small, gate: gate)
            let fast = EngineWatcher(engine)  // coalesces only above 4096 behind
            defer { slow.stop(); fast.stop() }
            let start = await engine.info().revision
            _ = try await slow.collect(through: start)
            _ = try await fast.collect(through: start)

            for i in 1...200 {
                try await engine.report("lights", "lamp", trait: 0x0006, [0: .bool(i % 2 == 1)])
                if i % 10 == 0 {
                    let rejected = try await engine.events(driver: "lights", .with {
                        $0.events = [.with {
                            $0.deviceID = "lamp"; $0.endpoint = 2; $0.traitID = 0x0045; $0.eventID = 0
                            $0.fields = Value.protoStruct([FieldID(0): .bool(i % 20 == 0)])
                        }]
                    })
                    #expect(rejected.isEmpty)
                }
            }
            try await engine.awaitCommit()
            let end = await engine.info().revision

            let fastSeen = try await fast.collect(through: end)
            #expect(fastSeen.changes.filter { $0.trait.state.traitID == 0x0006 }.count == 200)
            #expect(fastSeen.changes.filter { $0.event.traitID == 0x0045 }.count == 20)

            gate.open()
            let slowSeen = try await slow.collect(through: end)
            let onOff = slowSeen.changes.filter { $0.trait.state.traitID == 0x0006 }
            #expect(onOff.count < 200, "the backlog was coalesced")
            #expect(onOff.last?.trait.state.attributes.first?.value.boolValue == false, "newest value last")
            let events = slowSeen.changes.filter { $0.event.traitID == 0x0045 }
            #expect(events.count == 20, "events are never coalesced")
            #expect(events.map(\.revision) == events.map(\.revision).sorted())
            for seen in [fastSeen, slowSeen] {
                let revisions = seen.map(\.revision).filter { $0 != 0 }
                #expect(zip(revisions, revisions.dropFirst()).allSatisfy { $0 < $1 }, "increasing resume points")
                let changes = seen.changes.map(\.revision)
                #expect(changes == changes.sorted(), "change revisions never decrease")
            }
            #expect(engine.metrics.render().contains("hearth_watch_coalesced_total"))
            #expect(!engine.metrics.render().contains("hearth_watch_coalesced_total 0\n"))
            #expect((HubMetricsTests.sample(engine.metrics.render(), "hearth_watch_coalesced_total") ?? 0) > 0)
        }
    }

    @Test("filters by device id, device type and trait show only what they name")
    func filters() async throws {
        try await withEngine { engine in
            _ = await engine.driverConnected("lights")
            _ = try await engine.announce(driver: "lights", .with { $0.devices = [onOffLight("lamp"), contactSensorAnnouncement("door")] })
            let byDevice = EngineWatcher(engine, .with { $0.filter.deviceIds = ["lights/lamp"] })
            let byType = EngineWatcher(engine, .with { $0.filter.deviceTypeIds = [0x0015] })
            let byTrait = EngineWatcher(engine, .with { $0.filter.traitIds = [0x0045] })
            defer { for w in [byDevice, byType, byTrait] { w.stop() } }
            let start = await engine.info().revision
            var snapshots: [[Hearth_V1_Change]] = []
            for watcher in [byDevice, byType, byTrait] { snapshots.append(try await watcher.collect(through: start).changes) }

            try await engine.report("lights", "lamp", trait: 0x0006, [0: .bool(true)])
            try await engine.report("lights", "door", trait: 0x0045, [0: .bool(false)])
            try await engine.awaitCommit()
            let end = await engine.info().revision

            let device = try await snapshots[0] + byDevice.collect(through: end).changes
            #expect(Set(device.compactMap { $0.device.id.nilIfEmpty }) == ["lights/lamp"])
            #expect(device.map { $0.trait.deviceID }.filter { !$0.isEmpty }.allSatisfy { $0 == "lights/lamp" })
            #expect(device.contains { $0.trait.state.traitID == 0x0006 })
            #expect(device.contains { $0.structure.id == "home" }, "structures and rooms give context")

            let type = try await snapshots[1] + byType.collect(through: end).changes
            #expect(Set(type.compactMap { $0.device.id.nilIfEmpty }) == ["lights/door"])
            #expect(type.contains { $0.trait.state.traitID == 0x0045 && $0.trait.deviceID == "lights/door" })

            let trait = try await snapshots[2] + byTrait.collect(through: end).changes
            #expect(Set(trait.compactMap { $0.device.id.nilIfEmpty }) == ["lights/door", "lights/lamp"])
            #expect(trait.filter { !$0.trait.deviceID.isEmpty }.allSatisfy { $0.trait.state.traitID == 0x0045 })
            #expect(trait.contains { $0.trait.deviceID == "lights/door" })
        }
    }

    @Test("a device moved out of what a watcher sees arrives as device_removed, and back as a whole device")
    func movedOutAndBack() async throws {
        try await withEngine { engine in
            _ = await engine.driverConnected("lights")
            _ = try await engine.announce(driver: "lights", .with { $0.devices = [onOffLight("lamp")] })
            let cabin = try await engine.createStructure(name: "Cabin", by: Self.admin)
            let viewer = EngineWatcher(engine, as: UserAccess(user: "viewer", role: .viewer, structures: ["home"]))
            let homeOnly = EngineWatcher(engine, .with { $0.filter.structureIds = ["home"] })
            let everything = EngineWatcher(engine)
            defer { for w in [viewer, homeOnly, everything] { w.stop() } }
            let start = await engine.info().revision
            for watcher in [viewer, homeOnly] {
                #expect(try await watcher.collect(through: start).changes.contains { $0.device.id == "lights/lamp" })
            }
            _ = try await everything.collect(through: start)

            _ = try await engine.moveDevices(ids: ["lights/lamp"], toRoom: nil, structureID: cabin.id, by: Self.admin)
            try await engine.report("lights", "lamp", trait: 0x0006, [0: .bool(true)])  // in the cabin now
            _ = try await engine.moveDevices(ids: ["lights/lamp"], toRoom: nil, structureID: "home", by: Self.admin)
            let end = await engine.info().revision

            for watcher in [viewer, homeOnly] {
                let changes = try await watcher.collect(through: end).changes
                let kinds = changes.map { change -> String in
                    switch change.kind {
                    case .deviceRemoved(let id): "removed \(id)"
                    case .device(let d): "device \(d.id) in \(d.structureID)"
                    case .trait(let t): "trait \(t.deviceID)"
                    default: "other"
                    }
                }
                #expect(kinds == ["removed lights/lamp", "device lights/lamp in home"], "\(kinds)")
                #expect(!changes.contains { $0.structure.id == cabin.id })
            }
            let all = try await everything.collect(through: end).changes
            #expect(all.contains { $0.device.structureID == cabin.id })
            #expect(all.contains { $0.trait.deviceID == "lights/lamp" })
            #expect(!all.contains { if case .deviceRemoved = $0.kind { true } else { false } })
        }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

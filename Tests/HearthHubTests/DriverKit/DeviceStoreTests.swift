@testable import HearthDriverKit
import HearthModel
import HearthProto
import HearthTypes
import MetricsTestKit
import SwiftProtobuf
import Synchronization
import Testing

/// The driver's outbox without a hub: what a session's writer would send, in what order and batches.
@Suite("DeviceStore: coalesced reports, batches, events in order and bounded, results per session")
struct DeviceStoreTests {
    static func store(lamps: Int, eventLimit: Int = 4096) -> DeviceStore {
        let store = DeviceStore(vendorSchemas: [], eventLimit: eventLimit)
        for index in 0..<lamps { store.add(dimmableLight("lamp-\(index)")) }
        return store
    }

    /// A store of one lamp in an open session, and the lamp.
    static func connectedLamp() -> (DeviceStore, DriverDevice) {
        let store = Self.store(lamps: 1)
        _ = store.beginSession(devicesPerAnnounce: 200)
        return (store, DriverDevice(id: "lamp-0", store: store))
    }

    /// What the writer would send now, decoded.
    static func drain(_ store: DeviceStore, maxTraitsPerReport: Int = 1000) throws -> (
        messages: [Hearth_V1_DriverMessage], droppedEvents: Int
    ) {
        let (encoded, dropped, _) = try store.drain(maxTraitsPerReport: maxTraitsPerReport, devicesPerAnnounce: 200)
        return (try encoded.map { try Hearth_V1_DriverMessage(serializedBytes: $0) }, dropped)
    }

    static func reports(_ messages: [Hearth_V1_DriverMessage]) -> [Hearth_V1_Report] {
        messages.compactMap { if case .report(let r) = $0.kind { r } else { nil } }
    }

    @Test("a session opens with every device announced whole, in batches of devicesPerAnnounce")
    func opening() {
        let store = Self.store(lamps: 5)
        let (session, messages) = store.beginSession(devicesPerAnnounce: 2)
        #expect(session == 1)
        let announced = messages.compactMap { if case .announce(let a) = $0.kind { a.devices.map(\.id) } else { nil } }
        #expect(announced == [["lamp-0", "lamp-1"], ["lamp-2", "lamp-3"], ["lamp-4"]])
    }

    @Test("a burst of reports for one trait leaves one report with the newest values; unchanged values send nothing")
    func coalescing() throws {
        let (store, lamp) = Self.connectedLamp()
        for level in 1...100 { try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = UInt8(level) } }
        try lamp.report(Matter.OnOffTrait.self) { $0.onOff = false }  // as announced: no change
        let reports = Self.reports(try Self.drain(store).messages)
        #expect(reports.count == 1 && reports[0].traits.count == 1)
        #expect(reports[0].traits[0].traitID == 0x0008)
        #expect(reports[0].traits[0].attributes.map { Value(proto: $0.value) } == [.uint(100)])
        #expect(try Self.drain(store).messages.isEmpty)
        // Counted: a hundred values queued, ninety-nine of them replaced before the write; the unchanged
        // report queued nothing.
        var expected = Driver.Statistics()
        expected.valuesQueued = 100
        expected.valuesSuperseded = 99
        #expect(store.totals == expected)
        try lamp.report(trait: 0x0008, [0: .uint(5)])  // a raw report counts the same way
        try lamp.report(trait: 0x0008, [0: .uint(6)])
        expected.valuesQueued += 2
        expected.valuesSuperseded += 1
        #expect(store.totals == expected)
    }

    @Test("waiting: gathering for a report, event or removal, urgent for a result, nothing after the drain that takes them")
    func pending() throws {
        let (store, lamp) = Self.connectedLamp()
        #expect(store.waiting == .nothing)  // the opening announcements leave with the session's first write
        try lamp.report(Matter.OnOffTrait.self) { $0.onOff = false }  // as announced: nothing to send
        #expect(store.waiting == .nothing)
        try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 7 }
        try lamp.report(trait: TraitID(0x0006), [AttributeID(0): .bool(true)])
        #expect(store.waiting == .gathering)
        // The writer's first drain takes both reports; the second ring then finds nothing to wait for.
        #expect(Self.reports(try Self.drain(store).messages).first?.traits.count == 2)
        #expect(store.waiting == .nothing)
        var event = Hearth_V1_Event()
        event.deviceID = "lamp-0"
        store.emit(event)
        #expect(store.waiting == .gathering)
        _ = try Self.drain(store)
        try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 9 }
        #expect(store.waiting == .gathering)
        var result = Hearth_V1_CommandResult()
        result.correlationID = 1
        store.complete(result, session: 1)  // a result among reports: the whole batch goes at once
        #expect(store.waiting == .urgent)
        _ = try Self.drain(store)
        store.remove(["lamp-0"])
        #expect(store.waiting == .gathering)
        _ = try Self.drain(store)
        #expect(store.waiting == .nothing)
    }

    @Test("reportTogether wakes the writer once, after its body, and its traits leave in one report")
    func together() throws {
        let (store, lamp) = Self.connectedLamp()
        let before = store.rings.load(ordering: .relaxed)
        try lamp.reportTogether { lamp throws(DriverError) in
            try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 42 }
            try lamp.report(trait: TraitID(0x0006), [AttributeID(0): .bool(true)])
            // Queued, but the writer is not woken while the body runs.
            #expect(store.waiting == .gathering)
            #expect(store.rings.load(ordering: .relaxed) == before)
        }
        #expect(store.rings.load(ordering: .relaxed) == before + 1)
        let reports = Self.reports(try Self.drain(store).messages)
        #expect(reports.count == 1)
        #expect(reports.first?.traits.map(\.traitID).sorted() == [0x0006, 0x0008])
        // One by one, each report rings.
        try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 43 }
        try lamp.report(trait: TraitID(0x0006), [AttributeID(0): .bool(false)])
        #expect(store.rings.load(ordering: .relaxed) == before + 3)
    }

    @Test("reportTogether whose body throws sends what it reported before, and still wakes the writer")
    func togetherThrowing() throws {
        let (store, lamp) = Self.connectedLamp()
        let before = store.rings.load(ordering: .relaxed)
        #expect(throws: DriverError.self) {
            try lamp.reportTogether { lamp in  // as Docs/Drivers.md writes it
                try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 11 }
                try lamp.report(Matter.ThermostatTrait.self) { $0.localTemperature = 2000 }  // a lamp has none
            }
        }
        #expect(store.rings.load(ordering: .relaxed) == before + 1)
        let reports = Self.reports(try Self.drain(store).messages)
        #expect(reports.first?.traits.map(\.traitID) == [0x0008])
    }

    @Test("a handle made before other devices were removed or added still reports to its own device")
    func staleHandleHint() throws {
        let store = DeviceStore(vendorSchemas: [])
        // Handles as add() makes them, remembering where each device was then.
        let handles = (0..<4).map { DriverDevice(id: "lamp-\($0)", store: store, slot: store.add(dimmableLight("lamp-\($0)"))) }
        #expect(handles.map(\.slot) == [0, 1, 2, 3])
        #expect(store.add(dimmableLight("lamp-2")) == 2)  // replacing a device keeps its place
        _ = store.beginSession(devicesPerAnnounce: 200)
        _ = try Self.drain(store)
        store.remove(["lamp-0"])  // the others move down one place
        store.add(dimmableLight("lamp-4"))  // and lamp-4 takes lamp-3's old place
        _ = try Self.drain(store)
        try handles[3].report(Matter.LevelControlTrait.self) { $0.currentLevel = 43 }
        try handles[2].report(trait: 0x0008, [0: .uint(42)])
        #expect(throws: DriverError.self) { try handles[0].report(Matter.LevelControlTrait.self) { $0.currentLevel = 1 } }
        #expect(Set(Self.reports(try Self.drain(store).messages).flatMap(\.traits).map(\.deviceID)) == ["lamp-2", "lamp-3"])
        #expect(try store.attributes("lamp-3", trait: 0x0008, endpoint: nil)[0] == .uint(43))
        #expect(try store.attributes("lamp-2", trait: 0x0008, endpoint: nil)[0] == .uint(42))
        #expect(try store.attributes("lamp-4", trait: 0x0008, endpoint: nil)[0] != .uint(43))
        // Fewer devices than a handle's remembered place: the hint is out of range and the id is looked up.
        store.remove(["lamp-1", "lamp-4"])
        try handles[3].report(Matter.LevelControlTrait.self) { $0.currentLevel = 44 }
        #expect(try store.attributes("lamp-3", trait: 0x0008, endpoint: nil)[0] == .uint(44))
    }

    @Test("many traits go out in reports of at most maxTraitsPerReport")
    func batching() throws {
        let store = Self.store(lamps: 25)
        _ = store.beginSession(devicesPerAnnounce: 200)
        for index in 0..<25 {
            try DriverDevice(id: "lamp-\(index)", store: store).report(Matter.OnOffTrait.self) { $0.onOff = true }
        }
        let reports = Self.reports(try Self.drain(store, maxTraitsPerReport: 10).messages)
        #expect(reports.map(\.traits.count) == [10, 10, 5])
        #expect(reports.flatMap(\.traits).map(\.deviceID) == (0..<25).map { "lamp-\($0)" })
    }

    @Test("events keep their order; past the limit the oldest are dropped and counted")
    func events() throws {
        let store = Self.store(lamps: 0, eventLimit: 3)
        store.add(DeviceDescription(id: "door", name: "Door", endpoints: [
            EndpointDescription(ContactSensorDeviceType.self, traits: [
                .trait(Matter.IdentifyTrait.self), .trait(Matter.BooleanStateTrait.self) { $0.stateValue = true },
            ])
        ]))
        let door = DriverDevice(id: "door", store: store)
        for open in [true, false, true, false, true] {
            try door.emit(Matter.BooleanStateTrait.StateChangeEvent(stateValue: open))
        }
        _ = store.beginSession(devicesPerAnnounce: 200)
        let (messages, dropped) = try Self.drain(store)
        #expect(dropped == 2)
        let values = messages.flatMap { message -> [Value?] in
            guard case .events(let report) = message.kind else { return [] }
            return report.events.map { Value.fields(of: $0.fields)[0] }
        }
        #expect(values == [.bool(true), .bool(false), .bool(true)])
        #expect(store.totals.eventsDropped == 2)
        _ = try Self.drain(store)  // the per-drain count starts again; the total does not
        #expect(store.totals.eventsDropped == 2)
    }

    @Test("the metrics advance by what the totals moved since the last export, never twice")
    func metrics() throws {
        let factory = TestMetrics()
        let metrics = DriverMetrics(driverID: "lights", factory: factory)
        var totals = Driver.Statistics()
        totals.valuesQueued = 10
        totals.valuesSuperseded = 4
        metrics.export(totals)
        metrics.export(totals)  // a drain that found nothing new
        totals.valuesQueued = 15
        totals.eventsDropped = 1
        metrics.export(totals)
        let driver = [("driver", "lights")]
        #expect(try factory.expectCounter("hearth_driver_values_queued_total", driver).totalValue == 15)
        #expect(try factory.expectCounter("hearth_driver_values_superseded_total", driver).totalValue == 4)
        #expect(try factory.expectCounter("hearth_driver_events_dropped_total", driver).totalValue == 1)
    }

    @Test("a result is kept only for the session that asked")
    func resultsPerSession() throws {
        let store = Self.store(lamps: 1)
        let (first, _) = store.beginSession(devicesPerAnnounce: 200)
        store.endSession()
        let (second, _) = store.beginSession(devicesPerAnnounce: 200)
        store.complete(.with { $0.correlationID = 1 }, session: first)
        store.complete(.with { $0.correlationID = 2 }, session: second)
        let results = try Self.drain(store).messages.compactMap {
            if case .result(let r) = $0.kind { r.correlationID } else { nil }
        }
        #expect(results == [2])
    }

    @Test("a raw report queues only the values that differ, stores them, and throws for an unknown device or trait")
    func rawReport() throws {
        let (store, lamp) = Self.connectedLamp()
        let onOff = TraitID(0x0006)
        let on = try #require(try lamp.attributes(Matter.OnOffTrait.self).onOff)
        try lamp.report(trait: onOff, [AttributeID(0): .bool(on)])  // as announced: no change
        #expect(Self.reports(try Self.drain(store).messages).isEmpty)
        try lamp.report(trait: onOff, [AttributeID(0): .bool(!on), AttributeID(0x4001): .uint(7)])
        try lamp.report(trait: onOff, [AttributeID(0x4001): .uint(9)])
        let reports = Self.reports(try Self.drain(store).messages)
        #expect(reports.count == 1 && reports[0].traits.count == 1)
        let sent = Dictionary(uniqueKeysWithValues: reports[0].traits[0].attributes.map { ($0.id, Value(proto: $0.value)) })
        #expect(sent == [0: .bool(!on), 0x4001: .uint(9)])
        #expect(try lamp.attributes(Matter.OnOffTrait.self).onTime == 9)
        #expect(throws: DriverError.self) { try DriverDevice(id: "nope", store: store).report(trait: onOff, [AttributeID(0): .bool(true)]) }
        #expect(throws: DriverError.self) { try lamp.report(trait: TraitID(0x0300), [AttributeID(0): .uint(1)]) }
        #expect(Self.reports(try Self.drain(store).messages).isEmpty)
    }

    @Test("reports for an unknown device or trait throw and queue nothing")
    func unknown() throws {
        let store = Self.store(lamps: 1)
        _ = store.beginSession(devicesPerAnnounce: 200)
        #expect(throws: DriverError.self) {
            try DriverDevice(id: "nope", store: store).report(Matter.OnOffTrait.self) { $0.onOff = true }
        }
        #expect(throws: DriverError.self) {
            try DriverDevice(id: "lamp-0", store: store).report(Matter.ColorControlTrait.self) { $0.currentHue = 1 }
        }
        #expect(try Self.drain(store).messages.isEmpty)
    }
}

extension DeviceStoreTests {
    @Test("reports of two attributes at different times coalesce into one trait report with both")
    func twoAttributes() throws {
        let (store, lamp) = Self.connectedLamp()
        try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 10 }
        try lamp.report(Matter.LevelControlTrait.self) { $0.remainingTime = 5 }
        try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 11 }
        let traits = Self.reports(try Self.drain(store).messages).flatMap(\.traits)
        #expect(traits.count == 1)
        let values = Dictionary(uniqueKeysWithValues: traits[0].attributes.map { ($0.id, Value(proto: $0.value)) })
        #expect(values == [0x0000: .uint(11), 0x0001: .uint(5)])
        // The store holds the newest values; a later report of the same value sends nothing.
        #expect(try lamp.attributes(Matter.LevelControlTrait.self).currentLevel == 11)
        try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 11 }
        #expect(try Self.drain(store).messages.isEmpty)
    }

    @Test("a body that removes an attribute leaves it stored; connectivity alone is reported")
    func removalAndConnectivity() throws {
        let (store, lamp) = Self.connectedLamp()
        try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 42 }
        try store.update("lamp-0", trait: Matter.LevelControlTrait.traitID, endpoint: nil) { values in
            values.removeValue(forKey: 0x0000)
            values[0x0001] = .uint(3)
        }
        #expect(try lamp.attributes(Matter.LevelControlTrait.self).currentLevel == 42)
        _ = try Self.drain(store)
        try lamp.setConnectivity(.offline, of: Matter.OnOffTrait.self)
        let traits = Self.reports(try Self.drain(store).messages).flatMap(\.traits)
        #expect(traits.count == 1 && traits[0].traitID == 0x0006 && traits[0].attributes.isEmpty)
        #expect(traits[0].connectivity == .offline)
    }
}

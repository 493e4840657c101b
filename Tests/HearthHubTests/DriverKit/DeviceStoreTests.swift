@testable import HearthDriverKit
import HearthModel
import HearthProto
import HearthTypes
import SwiftProtobuf
import Testing

/// The driver's outbox without a hub: what a session's writer would send, in what order and batches.
@Suite("DeviceStore: coalesced reports, batches, events in order and bounded, results per session")
struct DeviceStoreTests {
    static func store(lamps: Int, eventLimit: Int = 4096) -> DeviceStore {
        let store = DeviceStore(vendorSchemas: [], eventLimit: eventLimit)
        for index in 0..<lamps { store.add(dimmableLight("lamp-\(index)")) }
        return store
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
        let store = Self.store(lamps: 1)
        _ = store.beginSession(devicesPerAnnounce: 200)
        let lamp = DriverDevice(id: "lamp-0", store: store)
        for level in 1...100 { try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = UInt8(level) } }
        try lamp.report(Matter.OnOffTrait.self) { $0.onOff = false }  // as announced: no change
        let reports = Self.reports(store.drain(maxTraitsPerReport: 1000, devicesPerAnnounce: 200).messages)
        #expect(reports.count == 1 && reports[0].traits.count == 1)
        #expect(reports[0].traits[0].traitID == 0x0008)
        #expect(reports[0].traits[0].attributes.map { Value(proto: $0.value) } == [.uint(100)])
        #expect(store.drain(maxTraitsPerReport: 1000, devicesPerAnnounce: 200).messages.isEmpty)
    }

    @Test("many traits go out in reports of at most maxTraitsPerReport")
    func batching() throws {
        let store = Self.store(lamps: 25)
        _ = store.beginSession(devicesPerAnnounce: 200)
        for index in 0..<25 {
            try DriverDevice(id: "lamp-\(index)", store: store).report(Matter.OnOffTrait.self) { $0.onOff = true }
        }
        let reports = Self.reports(store.drain(maxTraitsPerReport: 10, devicesPerAnnounce: 200).messages)
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
        let (messages, dropped) = store.drain(maxTraitsPerReport: 1000, devicesPerAnnounce: 200)
        #expect(dropped == 2)
        let values = messages.flatMap { message -> [Value?] in
            guard case .events(let report) = message.kind else { return [] }
            return report.events.map { Value.fields(of: $0.fields)[0] }
        }
        #expect(values == [.bool(true), .bool(false), .bool(true)])
    }

    @Test("a result is kept only for the session that asked")
    func resultsPerSession() {
        let store = Self.store(lamps: 1)
        let (first, _) = store.beginSession(devicesPerAnnounce: 200)
        store.endSession()
        let (second, _) = store.beginSession(devicesPerAnnounce: 200)
        store.complete(.with { $0.correlationID = 1 }, session: first)
        store.complete(.with { $0.correlationID = 2 }, session: second)
        let results = store.drain(maxTraitsPerReport: 1000, devicesPerAnnounce: 200).messages.compactMap {
            if case .result(let r) = $0.kind { r.correlationID } else { nil }
        }
        #expect(results == [2])
    }

    @Test("reports for an unknown device or trait throw and queue nothing")
    func unknown() {
        let store = Self.store(lamps: 1)
        _ = store.beginSession(devicesPerAnnounce: 200)
        #expect(throws: DriverError.self) {
            try DriverDevice(id: "nope", store: store).report(Matter.OnOffTrait.self) { $0.onOff = true }
        }
        #expect(throws: DriverError.self) {
            try DriverDevice(id: "lamp-0", store: store).report(Matter.ColorControlTrait.self) { $0.currentHue = 1 }
        }
        #expect(store.drain(maxTraitsPerReport: 1000, devicesPerAnnounce: 200).messages.isEmpty)
    }
}

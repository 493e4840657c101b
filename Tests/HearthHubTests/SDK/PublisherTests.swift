import Dispatch
import Foundation
import HearthDriverKit
import HearthHub
import HearthModel
import HearthProto
import HearthSDK
import HearthTypes
import HearthWire
import OpenCombineShim
import SwiftProtobuf
import Synchronization
import Testing

/// Collects a publisher's values and completion.
///
/// `@unchecked Sendable`: `cancellable` (an `AnyCancellable`, not `Sendable`) is set once in `init` and only
/// read afterwards; everything else is behind mutexes.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    let values = Mutex<[Value]>([])
    let completion = Mutex<Subscribers.Completion<HomeError>?>(nil)
    private var cancellable: AnyCancellable?

    init(_ publisher: AnyPublisher<Value, HomeError>) {
        cancellable = publisher.sink(
            receiveCompletion: { [weak self] c in self?.completion.withLock { $0 = c } },
            receiveValue: { [weak self] v in self?.values.withLock { $0.append(v) } })
    }

    var count: Int { values.withLock { $0.count } }
    func cancel() { cancellable?.cancel() }
}

@Suite("HearthSDK publishers: batched, stream, device types, coalescing, reconnection")
struct PublisherTests {
    @Test("batched() emits the whole set once per change; stream() emits every item, then only changed ones")
    func batchedAndStream() async throws {
        try await withHomeAndLights(["a", "b", "c"]) { _, _, driver, home in
            let batches = Recorder(home.devices().batched())
            let items = Recorder(home.devices().stream())
            _ = try await eventually { batches.count == 1 && items.count == 3 ? true : nil }
            try driver.device("a")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = 99 }
            _ = try await eventually { batches.count == 2 && items.count == 4 ? true : nil }
            let last = try #require(batches.values.withLock { $0.last })
            #expect(last.count == 3)
            let level = await last.first { $0.id == "lights/a" }?.types.get(DimmableLightDeviceType.self)?
                .matterTraits.levelControlTrait?.attributes.currentLevel
            #expect(level == 99)
            #expect(items.values.withLock { $0.last?.id } == "lights/a")
            // A rename of a room does not touch devices: no device emission.
            _ = try await home.structures().list().first!.createRoom(name: "Den")
            _ = try await eventually { try await home.rooms().list().isEmpty ? nil : true }
            #expect(batches.count == 2 && items.count == 4)
        }
    }

    @Test("a busy subscriber gets the newest values coalesced, not a backlog of each step")
    func coalescing() async throws {
        try await withHomeAndLights(["a"]) { _, _, driver, home in
            var iterator = home.devices().batches.makeAsyncIterator()
            let first = try #require(try await iterator.next())
            #expect(first.count == 1)
            let lamp = driver.device("a")!
            for level in 1...50 {
                try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = UInt8(level) }
                try await Task.sleep(for: .milliseconds(2))
            }
            // Wait until the cache has the last one, then read: one set with level 50.
            _ = try await eventually {
                try await home.devices().list().first?.types.get(DimmableLightDeviceType.self)?.matterTraits
                    .levelControlTrait?.attributes.currentLevel == 50 ? true : nil
            }
            let next = try #require(try await iterator.next())
            let level = await next.first?.types.get(DimmableLightDeviceType.self)?.matterTraits.levelControlTrait?
                .attributes.currentLevel
            #expect(level == 50)
        }
    }

    @Test("a subscription to a type the device lacks completes at once; a device with two types shows both apart")
    func deviceTypes() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                driver.add(DeviceDescription(id: "combo", name: "Speaker lamp", endpoints: [
                    EndpointDescription(SpeakerDeviceType.self, endpoint: 1, primary: true, traits: [
                        .trait(Matter.OnOffTrait.self) { $0.onOff = true },
                        .trait(Matter.LevelControlTrait.self) { $0.currentLevel = 30 },
                    ]),
                    EndpointDescription(DimmableLightDeviceType.self, endpoint: 2, primary: false, traits: [
                        .trait(Matter.IdentifyTrait.self) { $0.identifyTime = 0 },
                        .trait(Matter.OnOffTrait.self) { $0.onOff = false },
                        .trait(Matter.LevelControlTrait.self) { $0.currentLevel = 200 },
                    ]),
                ]))
                let endpoints = Mutex<[UInt32]>([])
                driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in
                    endpoints.withLock { $0.append(context.endpoint) }
                    try context.device.report(Matter.OnOffTrait.self, endpoint: context.endpoint) { $0.onOff = true }
                }
                try await withDriver(driver) {
                    try await client.waitForDevice("lights/combo") { $0.connectivity == .online }
                    let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin)
                    defer { home.close() }
                    let device = try #require(try await home.devices().list().first)
                    let missing = Recorder(device.types.subscribe(OnOffLightDeviceType.self))
                    _ = try await eventually { missing.completion.withLock { $0 } }
                    #expect(missing.count == 0)

                    let speaker = try #require(await device.types.get(SpeakerDeviceType.self))
                    let light = try #require(await device.types.get(DimmableLightDeviceType.self))
                    #expect(speaker.metadata.isPrimaryType && !light.metadata.isPrimaryType)
                    #expect(speaker.matterTraits.levelControlTrait?.attributes.currentLevel == 30)
                    #expect(light.matterTraits.levelControlTrait?.attributes.currentLevel == 200)

                    let lights = Recorder(device.types.subscribe(DimmableLightDeviceType.self))
                    let speakers = Recorder(device.types.subscribe(SpeakerDeviceType.self))
                    _ = try await eventually { lights.count == 1 && speakers.count == 1 ? true : nil }
                    try await light.matterTraits.onOffTrait?.on()
                    _ = try await eventually { lights.count == 2 ? true : nil }
                    #expect(endpoints.withLock { $0 } == [2])
                    #expect(lights.values.withLock { $0.last?.matterTraits.onOffTrait?.attributes.onOff } == true)
                    // The speaker's traits did not change: its subscription stayed quiet.
                    try await Task.sleep(for: .milliseconds(100))
                    #expect(speakers.count == 1)
                }
            }
        }
    }

    @Test("events reach each subscriber once, in order, with their time; a busy one still gets every event")
    func events() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                let door = driver.add(contactSensor("door"))
                try await withDriver(driver) {
                    try await client.waitForDevice("lights/door") { $0.connectivity == .online }
                    let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin)
                    defer { home.close() }
                    let device = try #require(try await home.devices().list().first)
                    let live = Recorder(device.events(Matter.BooleanStateTrait.StateChangeEvent.self))
                    var busy = device.eventUpdates(Matter.BooleanStateTrait.StateChangeEvent.self).makeAsyncIterator()
                    try await Task.sleep(for: .milliseconds(50))  // both attached before the events
                    let pattern = (0..<20).map { $0 % 3 == 0 }
                    for open in pattern { try door.emit(Matter.BooleanStateTrait.StateChangeEvent(stateValue: open)) }
                    _ = try await eventually { live.count == 20 ? true : nil }
                    let seen = live.values.withLock { $0 }
                    #expect(seen.map(\.event.stateValue) == pattern)
                    #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.revision <= $1.revision })
                    #expect(seen.allSatisfy { abs($0.time.timeIntervalSinceNow) < 60 })
                    var late: [Bool?] = []
                    for _ in 0..<20 { late.append(try await busy.next()?.event.stateValue) }
                    #expect(late == pattern.map { $0 })
                }
            }
        }
    }

    @Test("a subscriber stuck in its sink holds up no other; single-object publishers follow their object")
    func slowSubscriber() async throws {
        try await withHomeAndLights(["a"]) { _, client, driver, home in
            let gate = DispatchSemaphore(value: 0)
            let stuck = Mutex(0)
            let blocked = home.devices().batched().sink(receiveCompletion: { _ in }, receiveValue: { _ in
                stuck.withLock { $0 += 1 }
                gate.wait()  // blocks its own delivery task only
            })
            defer {
                blocked.cancel()
                gate.signal()
            }
            let device = Recorder(home.device(id: "lights/a"))
            let all = Recorder(try await home.devices().list().first!.types.subscribeAll())
            let structure = Recorder(home.structure(id: "home"))
            _ = try await eventually { stuck.withLock { $0 } == 1 && device.count == 1 && all.count == 1 ? true : nil }
            for level in [10, 20, 30] as [UInt8] {
                try driver.device("a")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = level }
                _ = try await eventually {
                    await device.values.withLock { $0.last }?.types.get(DimmableLightDeviceType.self)?.matterTraits
                        .levelControlTrait?.attributes.currentLevel == level ? true : nil
                }
            }
            _ = try await eventually {
                all.values.withLock { $0.last?[DimmableLightDeviceType.self]?.matterTraits.levelControlTrait?.attributes.currentLevel } == 30 ? true : nil
            }
            _ = try await client.call(HomeMethods.renameStructure, .with { $0.structureID = "home"; $0.name = "Flat" })
            _ = try await eventually { structure.values.withLock { $0.last?.name } == "Flat" ? true : nil }
            #expect(stuck.withLock { $0 } == 1, "the stuck sink is still in its first value")
            _ = try await client.call(HomeMethods.renameDevice, .with { $0.deviceID = "lights/a"; $0.name = "Gone soon" })
            driver.remove(["a"])
            _ = try await eventually { device.completion.withLock { $0 } }
        }
    }

    @Test("across a hub restart the home resumes: no change missed, none repeated")
    func reconnection() async throws {
        try await withTemporaryDirectory { dir in
            let (home, names, configure) = try Self.homeOnSocket(in: dir)
            defer { home.close() }
            try await withHub(directory: dir, configure: configure) { _, client in
                _ = try await home.structures().list()
                _ = try await client.call(HomeMethods.renameStructure, .with { $0.structureID = "home"; $0.name = "A" })
                _ = try await eventually { names.values.withLock { $0.last } == "A" ? true : nil }
            }
            try await withHub(directory: dir, configure: configure) { _, client in
                _ = try await client.call(HomeMethods.renameStructure, .with { $0.structureID = "home"; $0.name = "B" })
                _ = try await eventually { names.values.withLock { $0.last } == "B" ? true : nil }
                let info = try await client.call(HomeMethods.getHub, .init())
                _ = try await eventually { home.revision == info.revision ? true : nil }
            }
            #expect(names.values.withLock { $0 } == ["Home", "A", "B"])
        }
    }

    @Test("a hub with a new data directory makes the home re-list: its cache becomes that hub's, revision and all")
    func relistOnNewEpoch() async throws {
        try await withTemporaryDirectory { dir in
            let (home, names, configure) = try Self.homeOnSocket(in: dir)
            defer { home.close() }
            let first = dir.appendingPathComponent("first")
            let second = dir.appendingPathComponent("second")
            let oldRevision = try await withHub(directory: first, configure: configure) { _, client in
                _ = try await home.structures().list()
                for name in ["A", "B", "C", "D"] {
                    _ = try await client.call(HomeMethods.renameStructure, .with { $0.structureID = "home"; $0.name = name })
                }
                _ = try await eventually { names.values.withLock { $0.last } == "D" ? true : nil }
                return home.revision
            }
            // A new data directory is a new home (a new epoch): the hub cannot resume the old revision and
            // answers with a re-list, after the home's watch was already applying changes on its loop.
            try await withHub(directory: second, configure: configure) { _, client in
                _ = try await client.call(HomeMethods.renameStructure, .with { $0.structureID = "home"; $0.name = "New" })
                let info = try await client.call(HomeMethods.getHub, .init())
                #expect(info.revision < oldRevision)
                _ = try await eventually { home.revision == info.revision ? true : nil }
                _ = try await eventually { names.values.withLock { $0.last } == "New" ? true : nil }
                #expect(try await home.structures().list().map(\.name) == ["New"])
            }
            let seen = names.values.withLock { $0 }
            // A subscriber may see renames made close together as one (it gets the newest); the order holds.
            #expect(seen.first == "Home")
            #expect(seen.firstIndex(of: "D").map { $0 < seen.lastIndex(of: "New")! } == true)
            // Only real differences are published across the re-list: no name twice in a row.
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 })
        }
    }

    /// A home on a hub socket in `dir` that reconnects within 200 ms, a recorder of its structures' names,
    /// and the hub setting that makes a hub listen on that socket (hubs started one after another).
    private static func homeOnSocket(in dir: URL) throws
        -> (home: Home, names: Recorder<String>, configure: (inout Hub.Configuration) -> Void)
    {
        let socket = dir.appendingPathComponent("hub.sock").path
        var configuration = Home.Configuration()
        configuration.reconnect = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
        let home = try Home.connect(to: "unix:\(socket)", token: Tokens.admin, configuration: configuration)
        let names = Recorder(home.structures().stream().map(\.name).eraseToAnyPublisher())
        return (home, names, { $0.listen.append(.unix(path: socket)) })
    }
}

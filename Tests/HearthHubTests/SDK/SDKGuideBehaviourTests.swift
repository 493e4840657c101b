import HearthDriverKit
import HearthHub
import HearthSDK
import OpenCombineShim
import Synchronization
import Testing

/// What code from the guides relies on, checked against a real hub: synchronous first values (unretained
/// subscriptions), value-only `sink` on HomeError publishers, attributes read both ways, `combineLatest` of
/// SDK publishers.
@Suite("HearthSDK behaviour the guides rely on")
struct SDKGuideBehaviourTests {
    @Test("a synced cache delivers the current value before sink returns: an unretained subscription still gets it")
    func unretainedSubscription() async throws {
        try await withHomeAndLights(["a", "b"]) { _, _, _, home in
            let devices = try await home.devices().list()
            let device = try #require(devices.first { $0.id == "lights/a" })

            let light = Mutex<DimmableLightDeviceType?>(nil)
            _ = device.types.subscribe(DimmableLightDeviceType.self).sink { value in light.withLock { $0 = value } }
            #expect(light.withLock { $0 }?.matterTraits.onOffTrait != nil, "delivered before sink returned")

            let batch = Mutex<Set<HomeDevice>?>(nil)
            _ = home.devices().batched().sink { value in batch.withLock { $0 = value } }
            #expect(batch.withLock { $0 }?.count == 2)

            let streamed = Mutex<[String]>([])
            _ = home.devices().stream().sink { value in streamed.withLock { $0.append(value.id) } }
            #expect(streamed.withLock { $0 }.sorted() == ["lights/a", "lights/b"], "every ready value, not only the first")

            let completed = Mutex(false)
            _ = home.device(id: "lights/none").sink(
                receiveCompletion: { _ in completed.withLock { $0 = true } }, receiveValue: { _ in })
            #expect(completed.withLock { $0 }, "an unknown device finishes at once, synchronously too")
        }
    }

    @Test("a kept subscription gets the first value synchronously and later changes asynchronously, in order")
    func laterValues() async throws {
        try await withHomeAndLights(["a"]) { _, _, driver, home in
            _ = try await home.devices().list()
            let levels = Mutex<[UInt8?]>([])
            let cancellable = home.device(id: "lights/a")
                .compactMap { $0.types.all[DimmableLightDeviceType.self]?.matterTraits.levelControlTrait?.currentLevel }
                .sink { level in levels.withLock { $0.append(level) } }
            #expect(levels.withLock { $0.count } == 1)
            try driver.device("a")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = 77 }
            _ = try await eventually { levels.withLock { $0.last } == 77 ? true : nil }
            cancellable.cancel()
        }
    }

    @Test("sink(receiveValue:) on a HomeError publisher: values arrive; a failure ends it without a crash")
    func valueOnlySink() async throws {
        try await withHomeAndLights(["a"]) { _, _, _, home in
            _ = try await home.devices().list()
            let count = Mutex(0)
            let cancellable = home.devices().batched().sink { devices in count.withLock { $0 = devices.count } }
            #expect(count.withLock { $0 } == 1)
            cancellable.cancel()

            // An event subscriber that falls behind fails with resourceExhausted; closing the home finishes
            // the rest. Neither needs a completion closure.
            let values = Mutex<[Int]>([])
            let subject = PassthroughSubject<Int, HomeError>()
            let failing = subject.sink { value in values.withLock { $0.append(value) } }
            subject.send(1)
            subject.send(completion: .failure(HomeError(.unavailable, "gone")))
            subject.send(2)
            #expect(values.withLock { $0 } == [1], "values until the failure, nothing after it")
            failing.cancel()
        }
    }

    @Test("combineLatest of rooms and devices from the SDK; attributes read both ways agree")
    func combineRoomsAndDevices() async throws {
        try await withHomeAndLights(["a", "b"]) { _, _, driver, home in
            let structure = try #require(try await home.structures().list().first)
            let den = try await structure.createRoom(name: "Den")
            try await structure.move(device: "lights/a", to: den.id)
            _ = try await eventually { try await home.devices().list().contains { $0.roomID == den.id } ? true : nil }

            let summary = Mutex<[String: Int]>([:])
            let cancellable = home.rooms().batched()
                .combineLatest(home.devices().batched()) { rooms, devices in
                    Dictionary(uniqueKeysWithValues: rooms.map { room in (room.name, devices.filter { $0.roomID == room.id }.count) })
                }
                .sink { value in summary.withLock { $0 = value } }
            #expect(summary.withLock { $0 } == ["Den": 1])
            try await structure.move(device: "lights/b", to: den.id)
            _ = try await eventually { summary.withLock { $0 } == ["Den": 2] ? true : nil }
            cancellable.cancel()

            try driver.device("b")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = 42 }
            let device = try await eventually {
                try await home.devices().list().first {
                    $0.id == "lights/b" && $0.types.all[DimmableLightDeviceType.self]?.matterTraits.levelControlTrait?.currentLevel == 42
                }
            }
            let level = try #require(await device.types.get(DimmableLightDeviceType.self)?.matterTraits.levelControlTrait)
            #expect(level.currentLevel == level.attributes.currentLevel)
            #expect(level.maxLevel == level.attributes.maxLevel)
            let onOff = try #require(await device.types.get(DimmableLightDeviceType.self)?.matterTraits.onOffTrait)
            #expect(onOff.onOff == onOff.attributes.onOff)
        }
    }
}

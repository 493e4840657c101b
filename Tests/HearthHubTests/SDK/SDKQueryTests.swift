import Foundation
import HearthDriverKit
import HearthProto
import HearthSDK
import OpenCombineShim
import Synchronization
import Testing

/// The query members `PublisherTests` leaves out: the `changes` twin, `room(id:)`, objects as `Hashable`
/// value snapshots (`removeDuplicates()`), and single-object publishers of ids that do not exist.
@Suite("HearthSDK queries: changes, room(id:), value snapshots")
struct SDKQueryTests {
    /// Counts what passes through a pipeline (a class: a `Mutex` cannot be captured by an escaping closure).
    final class Counter: Sendable {
        let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    @Test("changes yields every device, then only each changed one; updatesAll() follows one device's types")
    func changes() async throws {
        try await withHomeAndLights(["a", "b"]) { _, _, driver, home in
            var changes = home.devices().changes.makeAsyncIterator()
            var typesOfA = try await home.cachedDevice("lights/a").types.updatesAll().makeAsyncIterator()
            #expect(try await typesOfA.next()?[DimmableLightDeviceType.self]?.matterTraits.onOffTrait?.attributes.onOff == false)
            var first: [String] = []
            for _ in 0..<2 { first.append(try #require(try await changes.next()).id) }
            #expect(first.sorted() == ["lights/a", "lights/b"])
            try driver.device("b")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = 77 }
            let changed = try #require(try await changes.next())
            #expect(changed.id == "lights/b")
            #expect(await changed.types.get(DimmableLightDeviceType.self)?.matterTraits.levelControlTrait?.attributes.currentLevel == 77)
            try driver.device("a")!.report(Matter.OnOffTrait.self) { $0.onOff = true }
            #expect(try await changes.next()?.id == "lights/a")
            let typesNow = try await typesOfA.next()
            #expect(typesNow?[DimmableLightDeviceType.self]?.matterTraits.onOffTrait?.attributes.onOff == true, "b's change was no emission")
            #expect(typesNow?.deviceTypeIDs == [DimmableLightDeviceType.deviceTypeID])
        }
    }

    @Test("one publisher subscribed twice: each subscription renders on its own (batched sets, type values)")
    func publisherSubscribedTwice() async throws {
        try await withHomeAndLights(["a", "b"]) { _, client, driver, home in
            let batched = home.devices().batched()
            let light = try await home.cachedDevice("lights/a").types.subscribe(DimmableLightDeviceType.self)
            let (setOne, setTwo) = (Recorder(batched), Recorder(batched))
            let (typeOne, typeTwo) = (Recorder(light), Recorder(light))
            // Each subscription renders its first value. The driver's own reports of its initial state may
            // still arrive and render once more (seen under ASan's slowdown), so counts are not compared: the
            // Home catches up with the hub, and each set shows b as the cache has it, before a changes.
            let hubRevision = try await client.call(HomeMethods.getHub, .init()).revision
            _ = try await eventually { home.revision >= hubRevision ? true : nil }
            let settledB = try await home.cachedDevice("lights/b")
            func b(_ recorder: Recorder<Set<HomeDevice>>) -> HomeDevice? {
                recorder.values.withLock { $0.last?.first { $0.id == "lights/b" } }
            }
            _ = try await eventually {
                [setOne, setTwo].allSatisfy { b($0) == settledB } && [typeOne, typeTwo].allSatisfy { $0.count >= 1 } ? true : nil
            }
            let counts = [setOne, setTwo].map(\.count)
            try driver.device("a")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = 42 }
            func level(_ set: Set<HomeDevice>?) async -> UInt8? {
                await set?.first { $0.id == "lights/a" }?.types.get(DimmableLightDeviceType.self)?
                    .matterTraits.levelControlTrait?.attributes.currentLevel
            }
            _ = try await eventually { () async -> Bool? in
                for recorder in [setOne, setTwo] where await level(recorder.values.withLock { $0.last }) != 42 { return nil }
                for recorder in [typeOne, typeTwo]
                where recorder.values.withLock({ $0.last?.matterTraits.levelControlTrait?.attributes.currentLevel }) != 42 {
                    return nil
                }
                return true
            }
            for (recorder, before) in zip([setOne, setTwo], counts) {
                let sets = recorder.values.withLock { $0 }
                #expect(sets.count > before, "a new set, the one with a's new level")
                #expect(sets.allSatisfy { $0.count == 2 })
                #expect(b(recorder) == settledB, "b did not change in the update that changed a: the set kept it")
            }
            for recorder in [typeOne, typeTwo] {
                #expect(recorder.values.withLock { $0.last?.matterTraits.levelControlTrait?.attributes.currentLevel } == 42)
            }
        }
    }

    @Test("room(id:), roomUpdates and structureUpdates follow renames and end on deletion; unknown ids finish at once")
    func roomPublisher() async throws {
        try await withHomeAndLights(["lamp"]) { _, _, _, home in
            let structure = try #require(try await home.structures().list().first)
            let den = try await structure.createRoom(name: "Den")
            _ = try await eventually { try await home.rooms().list().first { $0.id == den.id } }
            let room = Recorder(home.room(id: den.id))
            var roomTwin = home.roomUpdates(id: den.id).makeAsyncIterator()
            var structureTwin = home.structureUpdates(id: structure.id).makeAsyncIterator()
            _ = try await eventually { room.count == 1 ? true : nil }
            #expect(try await roomTwin.next()?.name == "Den")
            #expect(try await structureTwin.next()?.name == "Home")
            _ = try await den.setName("Study")
            _ = try await structure.setName("Flat")
            _ = try await eventually { room.count == 2 ? true : nil }
            #expect(try await roomTwin.next()?.name == "Study")
            #expect(try await structureTwin.next()?.name == "Flat")
            try await structure.deleteRoom(den)
            #expect(try await room.completed() == .finished)
            #expect(try await roomTwin.next() == nil)
            #expect(room.values.withLock { $0.map(\.name) } == ["Den", "Study"])
            #expect(room.values.withLock { $0.allSatisfy { $0.id == den.id && $0.structureID == structure.id } })

            let noRoom = Recorder(home.room(id: "nope"))
            let noStructure = Recorder(home.structure(id: "nope"))
            #expect(try await noRoom.completed() == .finished && noRoom.count == 0)
            #expect(try await noStructure.completed() == .finished && noStructure.count == 0)
        }
    }

    @Test("objects are Hashable value snapshots: removeDuplicates() drops a set emission where one device did not change")
    func valueSnapshots() async throws {
        try await withHomeAndLights(["a", "b"]) { _, _, driver, home in
            let sets = Counter()
            let lampA = Recorder(
                home.devices().batched()
                    .handleEvents(receiveOutput: { _ in sets.add() })
                    .compactMap { $0.first { $0.id == "lights/a" } }
                    .removeDuplicates()
                    .eraseToAnyPublisher())
            _ = try await eventually { sets.count == 1 && lampA.count == 1 ? true : nil }
            // b changes: a new set, in which a is equal to what it was.
            try driver.device("b")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = 90 }
            _ = try await eventually { sets.count == 2 ? true : nil }
            #expect(lampA.count == 1)
            try driver.device("a")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = 90 }
            _ = try await eventually { lampA.count == 2 ? true : nil }
            #expect(sets.count == 3)
            let (before, after) = try #require(lampA.values.withLock { $0.count == 2 ? ($0[0], $0[1]) : nil })
            #expect(before.id == after.id && before != after)
            #expect(Set([before, after, before]).count == 2)

            // Two lists with nothing changed in between hold equal values.
            let once = try await home.devices().list()
            let again = try await home.devices().list()
            #expect(once == again && Set(once.map(\.id)) == ["lights/a", "lights/b"])
        }
    }
}

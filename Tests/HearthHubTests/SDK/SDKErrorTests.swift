import Foundation
import HearthDriverKit
import HearthProto
import HearthSDK
import HearthWire
import OpenCombineShim
import Synchronization
import Testing

/// `HomeError` codes a client meets besides the command refusals of `HomeTests.errors`: the home's own
/// (address, sync timeout, refused token, closed home, call deadline) and the driver's (failure, not found).
@Suite("HearthSDK errors: connect, sync, token, close, deadlines, driver failures")
struct SDKErrorTests {
    @Test("a malformed address is invalidArgument at connect", arguments: ["localhost", "127.0.0.1:port", "127.0.0.1:0", "unix:", ":7070", ""])
    func malformedAddress(_ address: String) {
        #expect(throws: HomeError(.invalidArgument, "the hub address must be host:port or unix:/path, got '\(address)'")) {
            _ = try Home.connect(to: address, token: Tokens.admin)
        }
    }

    @Test("list() without a hub to answer is deadlineExceeded after the sync timeout")
    func syncTimeout() async throws {
        try await withTemporaryDirectory { dir in
            var configuration = Home.Configuration()
            configuration.syncTimeout = .milliseconds(300)
            let home = try Home.connect(to: "unix:\(dir.path)/nobody.sock", token: Tokens.admin, configuration: configuration)
            defer { home.close() }
            await expectHomeError(.deadlineExceeded) { _ = try await home.devices().list() }
            #expect(home.revision == 0)
        }
    }

    @Test("a refused token ends list() and every publisher with unauthenticated")
    func refusedToken() async throws {
        try await withHomeAndLights(["lamp"], token: "no-such-token") { _, _, _, home in
            let devices = Recorder(home.devices().batched())
            let error = await expectHomeError(.unauthenticated) { _ = try await home.structures().list() }
            #expect(error?.message.isEmpty == false)
            let ended = try await devices.completed()
            #expect(ended == .failure(HomeError(.unauthenticated, error?.message ?? "")))
            #expect(devices.count == 0)
        }
    }

    @Test("after close() publishers finish and calls are cancelled")
    func closed() async throws {
        try await withHomeAndLights(["lamp"]) { _, _, _, home in
            let lamp = try await home.cachedDevice("lights/lamp")
            let onOff = try #require(await lamp.types.get(DimmableLightDeviceType.self)?.matterTraits.onOffTrait)
            let devices = Recorder(home.devices().batched())
            _ = try await eventually { devices.count == 1 ? true : nil }
            home.close()
            #expect(try await devices.completed() == .finished)
            await expectHomeError(.cancelled) { _ = try await home.devices().list() }
            await expectHomeError(.cancelled) { try await onOff.on() }
            await expectHomeError(.cancelled) { _ = try await lamp.setName("Closed") }
            let late = Recorder(home.device(id: "lights/lamp"))
            #expect(try await late.completed() == .finished && late.count == 0)
        }
    }

    @Test("a driver's failure is commandFailed, its unexpected error internal, a handler past the call timeout deadlineExceeded")
    func driverFailures() async throws {
        try await withHomeAndLights(["lamp"]) { _, client, driver, _ in
            let release = Mutex(false)
            driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, _ in
                throw RPCError(code: .unknown, message: "relay stuck")
            }
            driver.onCommand(Matter.OnOffTrait.OffCommand.self) { _, _ in
                throw CocoaError(.fileNoSuchFile)
            }
            driver.onCommand(Matter.OnOffTrait.ToggleCommand.self) { _, _ in
                for _ in 0..<3000 where !release.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
            }
            defer { release.withLock { $0 = true } }
            var configuration = Home.Configuration()
            // The toggle handler holds 60 s; the others answer at once. 2 s was not enough beside CI's fuzzers,
            // and 5 s not in a parallel run where a long synchronous test held the pool for 15 s.
            configuration.callTimeout = .seconds(12)
            let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin, configuration: configuration)
            defer { home.close() }
            let onOff = try #require(
                try await home.cachedDevice("lights/lamp").types.get(DimmableLightDeviceType.self)?.matterTraits.onOffTrait)

            let failed = await expectHomeError(.commandFailed) { try await onOff.on() }
            #expect(failed?.message == "relay stuck")
            await expectHomeError(.internal) { try await onOff.off() }
            await expectHomeError(.deadlineExceeded) { try await onOff.toggle() }
        }
    }

    @Test("calls on a device the driver removed are notFound; device(id:) of no device finishes at once")
    func removedDevice() async throws {
        try await withHomeAndLights(["lamp", "spare"]) { _, _, driver, home in
            let spare = try await home.cachedDevice("lights/spare")
            let onOff = try #require(await spare.types.get(DimmableLightDeviceType.self)?.matterTraits.onOffTrait)
            driver.remove(["spare"])
            _ = try await eventually { try await home.devices().list().count == 1 ? true : nil }
            #expect(await spare.types.get(DimmableLightDeviceType.self) == nil, "get reads the cache, where it is gone")
            await expectHomeError(.notFound) { try await onOff.on() }
            await expectHomeError(.notFound) { _ = try await spare.setName("Gone") }
            let none = Recorder(home.device(id: "lights/spare"))
            #expect(try await none.completed() == .finished && none.count == 0)
        }
    }

    @Test("an event subscriber more than eventBacklog events behind is ended with resourceExhausted, not thinned")
    func eventBacklog() async throws {
        typealias StateChange = Matter.BooleanStateTrait.StateChangeEvent
        try await withHomeAndLights([]) { _, client, driver, witness in
            let door = driver.add(contactSensor("door"))
            try await client.waitForDevice("lights/door") { $0.connectivity == .online }
            var configuration = Home.Configuration()
            configuration.eventBacklog = 5
            let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin, configuration: configuration)
            defer { home.close() }
            var stuck = try await home.cachedDevice("lights/door").eventUpdates(StateChange.self).makeAsyncIterator()
            let witnessed = try await eventually { try await witness.devices().list().first { $0.id == "lights/door" } }
            let seen = Recorder(witnessed.events(StateChange.self))
            for index in 0..<20 { try door.emit(StateChange(stateValue: index % 2 == 0)) }
            // The witness (default backlog) gets all 20; once the stuck home's cache is as far, read.
            let last = try await eventually { seen.count == 20 ? seen.values.withLock { $0.last } : nil }
            _ = try await eventually { home.revision >= last.revision ? true : nil }
            let error = await expectHomeError(.resourceExhausted) { _ = try await stuck.next() }
            #expect(error?.message.contains("more than 5 events") == true, "\(String(describing: error))")
        }
    }

    @Test("other devices' events do not count against a device's event subscriber")
    func eventBacklogPerDevice() async throws {
        typealias StateChange = Matter.BooleanStateTrait.StateChangeEvent
        try await withHomeAndLights([]) { _, client, driver, witness in
            let door = driver.add(contactSensor("door"))
            let window = driver.add(contactSensor("window"))
            try await client.waitForDevice("lights/window") { $0.connectivity == .online }
            var configuration = Home.Configuration()
            configuration.eventBacklog = 5
            let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin, configuration: configuration)
            defer { home.close() }
            // An idle subscriber of the door, never read from while the window raises 20 events.
            var doorEvents = try await home.cachedDevice("lights/door").eventUpdates(StateChange.self).makeAsyncIterator()
            let witnessed = try await eventually { try await witness.devices().list().first { $0.id == "lights/window" } }
            let windowEvents = Recorder(witnessed.events(StateChange.self))
            for index in 0..<20 { try window.emit(StateChange(stateValue: index % 2 == 0)) }
            let last = try await eventually { windowEvents.count == 20 ? windowEvents.values.withLock { $0.last } : nil }
            _ = try await eventually { home.revision >= last.revision ? true : nil }
            try door.emit(StateChange(stateValue: true))
            let first = try await doorEvents.next()
            #expect(first?.deviceID == "lights/door" && first?.event.stateValue == true)
        }
    }

    @Test("the constructors and the mapping of other errors")
    func constructors() {
        #expect(HomeError.commandFailed("jammed") == HomeError(.commandFailed, "jammed"))
        #expect(HomeError.failedPrecondition("locked").code == .failedPrecondition)
        #expect(HomeError.notFound("x").code == .notFound && HomeError.invalidArgument("y").code == .invalidArgument)
        #expect(HomeError.commandFailed("jammed").description == "commandFailed: jammed")
        #expect(HomeError.from(CancellationError()).code == .cancelled)
        #expect(HomeError.from(CocoaError(.fileNoSuchFile)).code == .internal)
        #expect(HomeError.from(RPCError(code: .outOfRange, message: "m")) == HomeError(.invalidArgument, "m"))
        #expect(HomeError.from(HomeError.notFound("kept")) == HomeError.notFound("kept"))
    }
}

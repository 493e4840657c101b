import Foundation
import HearthDriverKit
import HearthHub
import HearthModel
import HearthProto
import HearthTypes
import HearthWire
import NIOPosix
import SwiftProtobuf
import Synchronization
import Testing

/// HearthDriverKit against a real hub over real sockets.
@Suite("HearthDriverKit: announcements, typed reports, handlers, reconnection")
struct DriverKitTests {
    static func command(_ device: String, trait: UInt32, command: UInt32, fields: [FieldID: Value] = [:])
        -> Hearth_V1_SendCommandRequest
    {
        .with {
            $0.deviceID = device
            $0.endpoint = 1
            $0.traitID = trait
            $0.commandID = command
            $0.fields = Value.protoStruct(fields)
        }
    }

    @Test("typed command handlers change state, reports reach watchers, writes are stored, missing handlers are UNIMPLEMENTED")
    func commandsAndReports() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                driver.add(dimmableLight("lamp"))
                driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in
                    try context.device.report(Matter.OnOffTrait.self, endpoint: context.endpoint) { $0.onOff = true }
                }
                driver.onCommand(Matter.LevelControlTrait.MoveToLevelCommand.self) { command, context in
                    try context.device.report(Matter.LevelControlTrait.self) { $0.currentLevel = command.level }
                }
                try await withDriver(driver) {
                    let announced = try await client.waitForDevice("lights/lamp") { $0.connectivity == .online }
                    #expect(announced.name == "Lamp")
                    #expect(announced.attribute(0x0028, 0x0001) == .string("Hearth"), "BasicInformation vendorName")

                    _ = try await client.call(HomeMethods.sendCommand, Self.command("lights/lamp", trait: 0x0006, command: 0x01))
                    _ = try await client.call(
                        HomeMethods.sendCommand,
                        Self.command("lights/lamp", trait: 0x0008, command: 0x00, fields: [0: .uint(200), 1: .null, 2: .uint(0), 3: .uint(0)]))
                    _ = try await client.call(HomeMethods.writeAttributes, .with {
                        $0.deviceID = "lights/lamp"; $0.endpoint = 1; $0.traitID = 0x0006
                        $0.attributes = [.with { $0.id = 0x4001; $0.value = Value.uint(50).proto }]
                    })
                    let device = try await client.waitForDevice("lights/lamp") {
                        $0.attribute(0x0006, 0) == .bool(true) && $0.attribute(0x0008, 0) == .uint(200)
                            && $0.attribute(0x0006, 0x4001) == .uint(50)
                    }
                    #expect(device.connectivity == .online)
                    #expect(try driver.device("lamp")?.attributes(Matter.OnOffTrait.self).onTime == 50)

                    await expectStatus(.unimplemented) {
                        _ = try await client.call(HomeMethods.sendCommand, Self.command("lights/lamp", trait: 0x0006, command: 0x02))
                    }
                }
            }
        }
    }

    @Test("a handler that hangs gives DEADLINE_EXCEEDED and the driver goes on; thrown errors reach the caller")
    func handlerFailures() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                driver.add(dimmableLight("stuck"))
                driver.add(dimmableLight("fine"))
                driver.onCommand(Matter.OnOffTrait.OffCommand.self) { _, context in
                    guard context.device.id == "fine" else {
                        // Hangs for good and ignores cancellation: awaiting an unstructured task's value does
                        // not pass cancellation on. (No timer: a pending hour-long sleep would keep the test
                        // process from exiting.)
                        await Task.detached { await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in } }.value
                        return
                    }
                    try context.device.report(Matter.OnOffTrait.self) { $0.onOff = false }
                }
                driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in
                    if context.device.id == "stuck" { throw RPCError(code: .failedPrecondition, message: "bulb missing") }
                    throw CocoaError(.fileNoSuchFile)
                }
                try await withDriver(driver) {
                    try await client.waitForDevice("lights/fine") { $0.connectivity == .online }
                    await expectStatus(.deadlineExceeded) {
                        _ = try await client.call(
                            HomeMethods.sendCommand, Self.command("lights/stuck", trait: 0x0006, command: 0x00),
                            timeout: .milliseconds(300))
                    }
                    _ = try await client.call(HomeMethods.sendCommand, Self.command("lights/fine", trait: 0x0006, command: 0x00))
                    do {
                        _ = try await client.call(HomeMethods.sendCommand, Self.command("lights/stuck", trait: 0x0006, command: 0x01))
                        Issue.record("expected FAILED_PRECONDITION")
                    } catch let error as RPCError {
                        #expect(error.code == .failedPrecondition && error.message == "bulb missing")
                    }
                    await expectStatus(.internal) {
                        _ = try await client.call(HomeMethods.sendCommand, Self.command("lights/fine", trait: 0x0006, command: 0x01))
                    }
                }
            }
        }
    }

    @Test("after the hub restarts the driver reconnects by itself and re-announces its current values")
    func reconnects() async throws {
        try await withTemporaryDirectory { dir in
            let socket = dir.appendingPathComponent("hub.sock").path
            let driver = Driver.lights(.unix(path: socket))
            let lamp = driver.add(dimmableLight("lamp"))
            let running = Task { try await driver.run() }
            defer { running.cancel() }
            try await withHub(directory: dir, configure: { $0.listen.append(.unix(path: socket)) }) { _, client in
                try await client.waitForDevice("lights/lamp") { $0.connectivity == .online }
                _ = try await client.call(HomeMethods.renameDevice, .with { $0.deviceID = "lights/lamp"; $0.name = "Hall lamp" })
            }
            // The hub is down: the report waits in the driver.
            try lamp.report(Matter.OnOffTrait.self) { $0.onOff = true }
            try await withHub(directory: dir, configure: { $0.listen.append(.unix(path: socket)) }) { _, client in
                let device = try await client.waitForDevice("lights/lamp") {
                    $0.connectivity == .online && $0.attribute(0x0006, 0) == .bool(true)
                }
                #expect(device.name == "Hall lamp", "the user's name survives the re-announcement")
                #expect(device.trait(0x0006)?.confirmed == true)
            }
            driver.stop()
            try await running.value
        }
    }

    @Test("events arrive in order; a remote trait cut off shows offline while local ones stay online")
    func eventsAndConnectivity() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                let door = driver.add(contactSensor("door", remoteState: true))
                try await withDriver(driver) {
                    let start = try await client.call(HomeMethods.getHub, .init())
                    try await client.waitForDevice("lights/door") { $0.connectivity == .online }
                    for open in [false, true, false] {
                        try door.emit(Matter.BooleanStateTrait.StateChangeEvent(stateValue: open))
                    }
                    try door.setConnectivity(.offline, of: Matter.BooleanStateTrait.self)
                    let seen = try await client.watch(.from(start.revision, epoch: start.epoch)) { seen in
                        seen.changes.filter { $0.event.traitID == 0x0045 }.count == 3
                            && seen.changes.contains { $0.trait.state.connectivity == .offline }
                    }
                    let events = seen.changes.filter { $0.event.traitID == 0x0045 }
                    #expect(events.map { Value.fields(of: $0.event.fields)[0] } == [.bool(false), .bool(true), .bool(false)])
                    let device = try await client.waitForDevice("lights/door") { $0.trait(0x0045)?.connectivity == .offline }
                    #expect(device.trait(0x0003)?.connectivity == .online)
                    #expect(device.connectivity == .partiallyOnline)
                }
            }
        }
    }

    @Test("a suggested room places a new device once (created by name, matched without case); after that the room is the user's")
    func suggestedRooms() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                var first = dimmableLight("a")
                first.room = "Kitchen"
                var second = dimmableLight("b")
                second.room = "kitchen"
                driver.add(first)
                driver.add(second)
                try await withDriver(driver) {
                    let a = try await client.waitForDevice("lights/a") { !$0.roomID.isEmpty }
                    let b = try await client.waitForDevice("lights/b") { !$0.roomID.isEmpty }
                    #expect(a.roomID == b.roomID)
                    let rooms = try await client.watch(.from(0)) { $0.synced }.changes.compactMap { change in
                        if case .room(let room) = change.kind { room } else { nil }
                    }
                    #expect(rooms.map(\.name) == ["Kitchen"])
                    #expect(rooms.first?.structureID == a.structureID)
                    // The user takes the lamp out of the kitchen; a re-announcement does not put it back.
                    _ = try await client.call(HomeMethods.moveDevices, .with {
                        $0.deviceIds = ["lights/a"]
                        $0.structureID = a.structureID
                    })
                    driver.add(first)
                    try await Task.sleep(for: .milliseconds(200))
                    let moved = try await client.waitForDevice("lights/a") { _ in true }
                    #expect(moved.roomID.isEmpty)
                }
            }
        }
    }

    @Test("commands and writes to a trait the driver marked offline are UNAVAILABLE; no handler runs, nothing is stored")
    func offlineTraits() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                let lamp = driver.add(dimmableLight("lamp"))
                let handled = Mutex(0)
                driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, _ in handled.withLock { $0 += 1 } }
                try await withDriver(driver) {
                    try await client.waitForDevice("lights/lamp") { $0.connectivity == .online }
                    try lamp.setConnectivity(.offline, of: Matter.OnOffTrait.self)
                    try await client.waitForDevice("lights/lamp") { $0.trait(0x0006)?.connectivity == .offline }
                    await expectStatus(.unavailable) {
                        _ = try await client.call(HomeMethods.sendCommand, Self.command("lights/lamp", trait: 0x0006, command: 0x01))
                    }
                    await expectStatus(.unavailable) {
                        _ = try await client.call(HomeMethods.writeAttributes, .with {
                            $0.deviceID = "lights/lamp"; $0.endpoint = 1; $0.traitID = 0x0006
                            $0.attributes = [.with { $0.id = 0x4001; $0.value = Value.uint(50).proto }]
                        })
                    }
                    #expect(handled.withLock { $0 } == 0)
                    #expect(try lamp.attributes(Matter.OnOffTrait.self).onTime == nil)
                    // Back online, the same command runs.
                    try lamp.setConnectivity(.online, of: Matter.OnOffTrait.self)
                    _ = try await client.call(HomeMethods.sendCommand, Self.command("lights/lamp", trait: 0x0006, command: 0x01))
                    #expect(handled.withLock { $0 } == 1)
                }
            }
        }
    }

    @Test(
        "handlers run on the connection's event loop by default, on the global executor when asked; both answer",
        arguments: [Driver.Configuration.HandlerExecution.eventLoop, .globalExecutor])
    func handlerExecution(_ execution: Driver.Configuration.HandlerExecution) async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port), handlerExecution: execution)
                driver.add(dimmableLight("lamp"))
                let onLoop = Mutex<[Bool]>([])
                driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in
                    onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
                    try context.device.report(Matter.OnOffTrait.self) { $0.onOff = true }
                }
                driver.onWrite(Matter.OnOffTrait.self) { _, _ in
                    onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
                }
                try await withDriver(driver) {
                    try await client.waitForDevice("lights/lamp") { $0.connectivity == .online }
                    _ = try await client.call(HomeMethods.sendCommand, Self.command("lights/lamp", trait: 0x0006, command: 0x01))
                    _ = try await client.call(HomeMethods.writeAttributes, .with {
                        $0.deviceID = "lights/lamp"; $0.endpoint = 1; $0.traitID = 0x0006
                        $0.attributes = [.with { $0.id = 0x4001; $0.value = Value.uint(5).proto }]
                    })
                    _ = try await client.waitForDevice("lights/lamp") { $0.attribute(0x0006, 0) == .bool(true) }
                }
                #expect(onLoop.withLock { $0 } == [execution == .eventLoop, execution == .eventLoop])
            }
        }
    }

    @Test("a command's result ends the batch window, and so does stopping: neither waits for the reports gathering")
    func resultEndsBatchWindow() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                var configuration = Driver.Configuration(hub: .tcp(host: "127.0.0.1", port: client.port), token: Tokens.lights)
                // Far longer than the call's deadline and the test's bound (20 s each): only a ring ends this wait
                // in time. A stop that did not end it would take the whole grace (30 s), past the bound.
                configuration.batchWindow = .seconds(600)
                configuration.stopGrace = .seconds(30)
                let driver = Driver(configuration: configuration)
                let lamp = driver.add(dimmableLight("lamp"))
                driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in
                    try context.device.report(Matter.OnOffTrait.self) { $0.onOff = true }
                }
                let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        try await withDriver(driver) {
                            try await client.waitForDevice("lights/lamp") { $0.connectivity == .online }
                            // The first report after the announcement leaves at once and starts the window…
                            try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 7 }
                            _ = try await client.waitForDevice("lights/lamp") { $0.attribute(0x0008, 0) == .uint(7) }
                            // …so this one waits in it, for ten minutes unless something ends the wait.
                            try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 8 }
                            _ = try await client.call(
                                HomeMethods.sendCommand, Self.command("lights/lamp", trait: 0x0006, command: 0x01))
                            // The result left with what gathered before it: the waiting report and the command's change.
                            _ = try await client.waitForDevice("lights/lamp") {
                                $0.attribute(0x0006, 0) == .bool(true) && $0.attribute(0x0008, 0) == .uint(8)
                            }
                            // A report waiting again when the driver stops: stop() ends that wait too, well
                            // inside its grace.
                            try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 9 }
                        }
                        return true
                    }
                    group.addTask {
                        try await Task.sleep(for: .seconds(20))
                        return false
                    }
                    let first = try await group.next()!
                    group.cancelAll()
                    return first
                }
                #expect(finished, "the driver did not answer and stop within 20 s: a ring did not end its batch window")
            }
        }
    }

    @Test("a wrong token ends run() with a clear error instead of retrying forever")
    func refusedToken() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port), token: "nope")
                driver.add(dimmableLight("lamp"))
                await #expect(throws: DriverError.self) { try await driver.run() }
            }
        }
    }
}

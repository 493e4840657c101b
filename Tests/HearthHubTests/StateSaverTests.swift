@testable import HearthHub
import HearthModel
import HearthProto
@testable import HearthWire
import NIOPosix
import SwiftProtobuf
import Testing

/// Trait states are saved within the save interval of being published, however the engine was reached.
@Suite("State saver: armed from an event loop without a wake-up, or by sleeping elsewhere")
struct StateSaverTests {
    @Test("a report made on an event loop is saved by that loop's timer; one made elsewhere by the sleeping saver")
    func armedEitherWay() async throws {
        for onLoop in [true, false] {
            // Five saves, each waited for: a short interval keeps the test quick (the arming is what it checks).
            try await withEngine(configure: { $0.stateSaveInterval = .milliseconds(10) }) { engine in
                _ = await engine.driverConnected("lights")
                _ = try await engine.announce(driver: "lights", .with { $0.devices = [lampWithSensor("a")] })
                try await engine.awaitCommit()
                await engine.saveStates()  // the announcement's
                #expect(await engine.unsaved.isEmpty)

                let executor: (any TaskExecutor)? =
                    onLoop ? EventLoopTaskExecutor(eventLoop: MultiThreadedEventLoopGroup.singleton.next()) : nil
                // An idle engine runs on its caller's executor; one busy elsewhere (its writers) may not, so
                // a few reports are made, each saved before the next.
                for value in [true, false, true, false, true] {
                    try await Task(executorPreference: executor) {
                        #expect((MultiThreadedEventLoopGroup.currentEventLoop != nil) == onLoop)
                        try await engine.report("lights", "a", trait: 0x0006, [0: .bool(value)])
                    }.value
                    let deadline = ContinuousClock.now + .seconds(10)
                    while await !engine.unsaved.isEmpty, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    #expect(await engine.unsaved.isEmpty, "saved (on a loop: \(onLoop))")
                }
                let timers = await engine.saveTimers
                #expect(onLoop ? timers >= 1 : timers == 0, "saves armed by a loop's timer: \(timers)")
                #expect(await engine.saveArmed == false, "a later state arms the next save")
            }
        }
    }
}

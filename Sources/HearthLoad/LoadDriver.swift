import Foundation
public import HearthDriverKit
import HearthModel
import HearthTypes
public import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A load-test driver process: announces its ``LoadMix`` devices, answers OnOff commands, and reports at
/// the rates the orchestrator asks for on standard input.
///
/// The control protocol is one line per message. In: `RUN <phase> <rate> <seconds>` (reports per second,
/// open loop, round robin over the devices); the end of input stops the driver. Out: `DONE <phase> <sent>
/// <total> <max lag µs> <errors>`, where `total` counts every report since start (the orchestrator derives
/// each device's final `seq` from it) and the lag is how far behind its schedule the driver fell.
public final class LoadDriver: Sendable {
    struct State {
        var seqs: [UInt64]
        var total = 0
    }

    let driver: Driver
    /// The one loop of the driver's connection, where the report generator runs too (see ``emit(rate:seconds:)``).
    let loop: any EventLoop
    let devices: [LoadDevice]
    let handles: [DriverDevice]
    /// Each device's change, by the same index (see ``LoadDevice/Change/report(_:sentAt:on:)``).
    let changes: [LoadDevice.Change]
    let state: Mutex<State>
    /// The shortest sleep of the report generator, in nanoseconds: what falls due meanwhile is sent together,
    /// late by up to this much (measured delays count from the due time, so they include it).
    let tickNanos: UInt64
    let logger: Logger

    /// A driver of `devices`, connected by `configuration` (its ``LoadProbe`` schema is added), whose report
    /// generator sleeps at least `tickMicros` µs between sends.
    public init(
        configuration: Driver.Configuration, devices: [LoadDevice], tickMicros: UInt64 = 200, logger: Logger
    ) {
        var configuration = configuration
        configuration.vendorTraitSchemas.append(LoadProbe.schema)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let driver = Driver(configuration: configuration, eventLoopGroup: group, logger: logger)
        self.driver = driver
        loop = group.next()
        self.devices = devices
        handles = devices.map { driver.add($0.description) }
        changes = devices.map(\.change)
        state = Mutex(State(seqs: Array(repeating: 0, count: devices.count)))
        tickNanos = max(tickMicros, 1) * 1000
        self.logger = logger
        installHandlers()
    }

    private func installHandlers() {
        driver.onCommand(Matter.OnOffTrait.ToggleCommand.self) { _, context in
            let on = try context.device.attributes(Matter.OnOffTrait.self).onOff ?? false
            try context.device.report(Matter.OnOffTrait.self) { $0.onOff = !on }
        }
        driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in
            try context.device.report(Matter.OnOffTrait.self) { $0.onOff = true }
        }
        driver.onCommand(Matter.OnOffTrait.OffCommand.self) { _, context in
            try context.device.report(Matter.OnOffTrait.self) { $0.onOff = false }
        }
    }

    /// Runs until the end of standard input, then disconnects.
    public func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.driver.run() }
            for await line in Self.standardInputLines() {
                let words = line.split(separator: " ").map(String.init)
                guard words.count == 4, words[0] == "RUN", let rate = Double(words[2]), let seconds = Double(words[3]),
                    rate > 0, seconds >= 0
                else {
                    logger.error("load.driver.bad_control_line", metadata: ["line": "\(line)"])
                    continue
                }
                let result = await emit(rate: rate, seconds: seconds)
                // Written straight to the descriptor: fflush would wait for the stdin lock the reader holds.
                let done = "DONE \(words[1]) \(result.sent) \(result.total) \(result.maxLagMicros) \(result.errors)\n"
                FileHandle.standardOutput.write(Data(done.utf8))
            }
            driver.stop()
            do {
                try await group.waitForAll()
            } catch is CancellationError {
                // stop() ends the session this way: a clean exit.
            }
        }
    }

    struct PhaseResult {
        var sent = 0
        var total = 0
        var maxLagMicros: UInt64 = 0
        var errors = 0
    }

    /// Sends `rate × seconds` reports on an open-loop schedule, from timers on the loop of the driver's
    /// connection: each wake sends what has fallen due (waking at least ``tickNanos`` apart), and DriverKit
    /// writes it in the same pass of the loop. A thread of its own sleeping in `nanosleep` cost a second
    /// wake-up per report (the thread's, then the loop's, woken to write); a `Task.sleep` cost a libdispatch
    /// timer and two more.
    func emit(rate: Double, seconds: Double) async -> PhaseResult {
        await withCheckedContinuation { continuation in
            let run = Emission(schedule: OpenLoopSchedule(start: LoadProbe.now(), rate: rate, seconds: seconds))
            loop.execute { self.step(run, continuation) }
        }
    }

    /// One phase's schedule and what it has sent so far, passed from one timer to the next.
    struct Emission: Sendable {
        let schedule: OpenLoopSchedule
        var result = PhaseResult()
    }

    /// Sends what is due, then sets a timer for the next due time, or ends the phase.
    private func step(_ run: Emission, _ continuation: CheckedContinuation<PhaseResult, Never>) {
        var run = run
        let now = LoadProbe.now()
        let due = run.schedule.dueCount(at: now)
        while run.result.sent < due {
            let dueAt = run.schedule.due(run.result.sent)
            run.result.maxLagMicros = max(run.result.maxLagMicros, (now - min(now, dueAt)) / 1000)
            if !send(sentAt: dueAt) { run.result.errors += 1 }
            run.result.sent += 1
        }
        guard run.result.sent < run.schedule.total else {
            run.result.total = state.withLock { $0.total }
            continuation.resume(returning: run.result)
            return
        }
        let next = run.schedule.due(run.result.sent)
        let wait = max(next - min(next, LoadProbe.now()), tickNanos)
        let later = run
        loop.scheduleTask(in: .nanoseconds(Int64(wait))) { self.step(later, continuation) }
    }

    /// The next round-robin report; false when DriverKit refused it.
    private func send(sentAt: UInt64) -> Bool {
        let (index, seq) = state.withLock { state in
            let index = state.total % devices.count
            state.total += 1
            state.seqs[index] += 1
            return (index, state.seqs[index])
        }
        do {
            try changes[index].report(seq, sentAt: sentAt, on: handles[index])
            return true
        } catch {
            return false
        }
    }

    /// Standard input, line by line, read on a thread of its own since the reads block.
    static func standardInputLines() -> AsyncStream<String> {
        AsyncStream { continuation in
            Thread.detachNewThread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
        }
    }
}

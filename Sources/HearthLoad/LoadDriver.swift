import Foundation
public import HearthDriverKit
import HearthModel
import HearthTypes
public import Logging
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
        let driver = Driver(configuration: configuration, logger: logger)
        self.driver = driver
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

    /// Sends `rate × seconds` reports on an open-loop schedule, from a thread of its own that sleeps with
    /// `nanosleep` between due times (at least ``tickNanos``): a `Task.sleep` every 200 µs cost a libdispatch
    /// timer (a write to its manager thread and two thread wake-ups) per wake, more CPU than the DriverKit
    /// being measured.
    func emit(rate: Double, seconds: Double) async -> PhaseResult {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: self.emitBlocking(rate: rate, seconds: seconds))
            }
        }
    }

    private func emitBlocking(rate: Double, seconds: Double) -> PhaseResult {
        let schedule = OpenLoopSchedule(start: LoadProbe.now(), rate: rate, seconds: seconds)
        var result = PhaseResult()
        while result.sent < schedule.total {
            let now = LoadProbe.now()
            let due = schedule.dueCount(at: now)
            while result.sent < due {
                let dueAt = schedule.due(result.sent)
                result.maxLagMicros = max(result.maxLagMicros, (now - min(now, dueAt)) / 1000)
                if !send(sentAt: dueAt) { result.errors += 1 }
                result.sent += 1
            }
            guard result.sent < schedule.total else { break }
            let wait = max(schedule.due(result.sent) - min(schedule.due(result.sent), LoadProbe.now()), tickNanos)
            var time = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
            nanosleep(&time, nil)
        }
        result.total = state.withLock { $0.total }
        return result
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

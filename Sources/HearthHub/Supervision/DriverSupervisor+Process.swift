import Foundation
import Logging
import Subprocess
import SystemPackage

extension DriverSupervisor {
    /// Runs one process of a plugin until it exits, or until a restart by hand or cancellation stops it
    /// (SIGTERM, then SIGKILL after the grace period). Forwards its output lines to the hub's log.
    /// - Returns: how it ended, for logs and ListDrivers.
    nonisolated func launch(_ spec: PluginSpec, token: String, hub: String, wakes: AsyncStream<Void>) async -> String {
        var options = PlatformOptions()
        // Its own process group: a Ctrl-C at the hub's terminal reaches the hub only, which stops its plugins.
        options.processGroupID = 0
        let teardown: [TeardownStep] = [.gracefulShutDown(allowedDurationToNextStep: policy.stopGrace)]
        options.teardownSequence = teardown
        var environment: [Environment.Key: String?] = [:]
        for (key, value) in spec.environment { environment[Environment.Key(stringLiteral: key)] = value }
        environment["HEARTH_HUB"] = hub
        environment["HEARTH_DRIVER_TOKEN"] = token
        environment["HEARTH_DRIVER_ID"] = spec.id
        environment["HEARTH_SUPERVISED"] = "1"
        let id = spec.id
        let logger = logger
        do {
            let result = try await Subprocess.run(
                .path(FilePath(spec.executable)), arguments: Arguments(spec.arguments),
                environment: .inherit.updating(environment), platformOptions: options,
                input: .inputWriter, output: .sequence, error: .sequence
            ) { execution in
                await self.started(id, pid: execution.processIdentifier.value)
                await withTaskGroup(of: Bool.self) { group in
                    for output in [execution.standardOutput, execution.standardError] {
                        group.addTask {
                            do {
                                for try await line in output.strings() {
                                    logger.info("driver.output", metadata: ["driver.id": "\(id)", "driver.line": "\(line)"])
                                }
                            } catch {}
                            return true
                        }
                    }
                    group.addTask {
                        // A restart by hand wakes this; a stale wake (the plugin had not started yet) does not stop it.
                        for await _ in wakes where await self.isRestartRequested(id) {
                            await execution.teardown(using: teardown)
                            return false
                        }
                        return false
                    }
                    // Both outputs at end of file: the process is gone (or closed them); stop watching for wakes.
                    var ended = 0
                    while let output = await group.next() {
                        if output { ended += 1 }
                        if ended == 2 { group.cancelAll() }
                    }
                }
                // Standard input stayed open until now: the plugin sees it end only when the hub goes away.
                try? await execution.standardInputWriter.finish()
            }
            return Self.describe(result.terminationStatus)
        } catch {
            logger.error("hub.driver.launch_failed", metadata: ["driver.id": "\(id)", "error": "\(error)"])
            return "could not start \(spec.executable): \(error)"
        }
    }

    /// Returns at the deadline, at a wake (a restart by hand), or when cancelled.
    nonisolated func waitForWake(_ wakes: AsyncStream<Void>, until deadline: ContinuousClock.Instant?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = wakes.makeAsyncIterator()
                _ = await iterator.next()
            }
            if let deadline {
                group.addTask { try? await Task.sleep(until: deadline) }
            }
            await group.next()
            group.cancelAll()
        }
    }

    static func describe(_ status: TerminationStatus) -> String {
        switch status {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}

import Foundation
import HearthLoad
import Testing

/// The `small` preset end to end, as CI's smoke test: `hearth-load` starts a real hub, two driver processes
/// and five clients, drives two rates, a stalled client and commands, and must lose, repeat and reorder
/// nothing. Its delays are printed, never asserted. All five clients join at once (`--join-concurrency`).
@Suite struct LoadSmokeTests {
    @Test(.timeLimit(.minutes(3))) func smallPresetRunsCleanly() async throws {
        try await withTemporaryDirectory { directory in
            let process = Process()
            process.executableURL = builtProduct("hearth-load")
            process.arguments = ["--preset", "small", "--join-concurrency", "5", "--out", directory.path]
            try process.run()
            let deadline = ContinuousClock.now + .seconds(150)
            while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)

            let report = try JSONDecoder().decode(
                LoadReport.self, from: Data(contentsOf: directory.appendingPathComponent("results.json")))
            #expect(report.clean)
            #expect(report.registerSeconds > 0)
            let footprint = try #require(report.clientFootprint)
            #expect(footprint.devices == 100 && footprint.residentAfter > footprint.residentBefore)
            #expect(report.firstListSeconds.count == 5)  // four kinds and the stalled one
            #expect(report.plan.joinConcurrency == 5)
            let rates = report.phases.filter { $0.kind == "rate" }
            #expect(rates.map(\.rate) == [100, 400])
            for phase in report.phases {
                #expect(phase.sent == Int(phase.rate * report.plan.seconds))
                #expect(phase.latency.count > 0)
                #expect(phase.gaps == 0 && phase.duplicates == 0 && phase.regressions == 0 && phase.driverErrors == 0)
            }
            let stall = try #require(report.phases.first { $0.kind == "stall" }?.stalledClient)
            #expect(stall.caughtUp)
            let commands = try #require(report.commands)
            #expect(commands.sent == 40 && commands.succeeded == 40 && commands.errors.isEmpty)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("latency.svg").path))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("table.txt").path))
        }
    }
}

import Foundation
import Histogram
import HearthSDK
import HearthTypes
import Synchronization

/// One `Home` toggling one device's OnOff trait at a fixed rate on a hub that is already running: a command's
/// round trip through HearthSDK alone, beside other callers of the same hub (`tools/Benchmarks/command-rtt.sh`).
public enum TogglePace {
    /// What a run measured: each call timed from `toggle()` to its return, in milliseconds.
    public struct Outcome: Sendable {
        public var ok: Int
        public var errors: [String: Int]
        public var fromCall: Percentiles
        /// This process's CPU time (user and system, all threads, from `/proc` in clock ticks) over the calls,
        /// per call, in µs.
        public var cpuPerCall: Double
    }

    /// Connects, finds `device`'s OnOff trait in the cache, then toggles it `calls` times at `rate` per second
    /// (open loop: a call is started at its time even while the one before it is out).
    public static func run(address: String, token: String, device: String, rate: Double, calls: Int) async throws -> Outcome {
        let home = try Home.connect(to: address, token: token)
        defer { home.close() }
        let trait = try await home.onOffTrait(device)
        let results = CommandResults()
        let schedule = OpenLoopSchedule(start: LoadProbe.now() + 1_000_000, rate: rate, seconds: Double(calls) / rate)
        let cpuBefore = ProcessStats.of(getpid())?.cpuSeconds ?? 0
        await LoadRun.startCalls(on: schedule) { _, _, _ in
            do {
                let called = LoadProbe.now()
                try await trait.toggle()
                let answered = LoadProbe.now()
                results.state.withLock {
                    _ = $0.fromCall.record((answered - called) / 1000)
                    $0.ok += 1
                }
            } catch {
                results.state.withLock { $0.errors["\(HomeError.from(error).code)", default: 0] += 1 }
            }
        }
        let cpu = ((ProcessStats.of(getpid())?.cpuSeconds ?? 0) - cpuBefore) * 1e6 / Double(calls)
        return results.state.withLock { Outcome(ok: $0.ok, errors: $0.errors, fromCall: Percentiles($0.fromCall), cpuPerCall: cpu) }
    }
}

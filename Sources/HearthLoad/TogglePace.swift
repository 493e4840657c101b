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
        /// This process's CPU time (user and system, all threads) over the calls, per call, in µs.
        public var cpuPerCall: Double
    }

    /// This process's CPU time so far, in µs.
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func µs(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
        return µs(usage.ru_utime) + µs(usage.ru_stime)
    }

    /// Connects, finds `device`'s OnOff trait in the cache, then toggles it `calls` times at `rate` per second
    /// (open loop: a call is started at its time even while the one before it is out).
    public static func run(address: String, token: String, device: String, rate: Double, calls: Int) async throws -> Outcome {
        let home = try Home.connect(to: address, token: token)
        defer { home.close() }
        var updates = home.deviceUpdates(id: device).makeAsyncIterator()
        guard let found = try await updates.next(),
            let trait = found.types.all.instances.lazy.compactMap({ $0.traits[Matter.OnOffTrait.self] }).first
        else { throw HomeError(.notFound, "no device '\(device)' with an OnOff trait on the hub") }
        let results = CommandResults()
        let schedule = OpenLoopSchedule(start: LoadProbe.now() + 1_000_000, rate: rate, seconds: Double(calls) / rate)
        let cpuBefore = processCPU()
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
        let cpu = (processCPU() - cpuBefore) / Double(calls)
        return results.state.withLock { Outcome(ok: $0.ok, errors: $0.errors, fromCall: Percentiles($0.fromCall), cpuPerCall: cpu) }
    }
}

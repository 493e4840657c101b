import Foundation
import HearthSDK
import Histogram
import Synchronization

extension LoadRun {
    /// Drives `rate` reports per second for the plan's seconds, waits until every client has every
    /// device's last report (or the settle time passes), and reports what the clients saw. With `stall`,
    /// that client blocks its deliveries for the whole phase and is reported apart.
    func ratePhase(_ fleet: Fleet, rate: Double, stall: LoadClient?) async throws -> PhaseReport {
        let clients = fleet.clients
        for client in fleet.allClients { client.startPhase() }
        stall?.stall(seconds: plan.seconds)
        let phaseID = UUID().uuidString.prefix(8)
        let hubBefore = ProcessStats.of(fleet.hub.pid)
        let start = LoadProbe.now()
        let perDriver = rate / Double(plan.drivers)
        for driver in fleet.drivers { driver.send("RUN \(phaseID) \(perDriver) \(plan.seconds)") }
        var totals: [Int] = []
        var sent = 0, errors = 0
        var maxLag = 0.0
        for (index, driver) in fleet.drivers.enumerated() {
            let timeout = Duration.seconds(plan.seconds + plan.settleSeconds + 60)
            guard let line = await driver.line(timeout: timeout, where: { $0.hasPrefix("DONE \(phaseID) ") }) else {
                throw LoadError("driver load-\(index + 1) did not finish the phase at \(rate)/s")
            }
            let words = line.split(separator: " ")
            guard words.count == 6, let phaseSent = Int(words[2]), let total = Int(words[3]), let lag = Double(words[4]),
                let phaseErrors = Int(words[5])
            else { throw LoadError("driver load-\(index + 1) answered '\(line)'") }
            sent += phaseSent
            totals.append(total)
            errors += phaseErrors
            maxLag = max(maxLag, lag / 1000)
        }
        let sendSeconds = max(seconds(since: start), plan.seconds)
        let expected = expectedSeqs(fleet, totals: totals)
        let settled = await settle(clients + [stall].compactMap { $0 }, expected: expected)
        let hubAfter = ProcessStats.of(fleet.hub.pid)
        let wall = seconds(since: start)

        var delays = Histogram<UInt64>.delays()
        var deliveries = 0, duplicates = 0, regressions = 0, gaps = 0
        var coalesced: UInt64 = 0
        for client in clients {
            let tracker = client.summary
            delays.add(tracker.delays)
            deliveries += tracker.deliveries
            coalesced += tracker.coalesced
            duplicates += tracker.duplicates
            regressions += tracker.regressions
            gaps += settled[client.name] ?? 0
        }
        let latency = Percentiles(delays)
        let passed = latency.count > 0 && latency.p99 < plan.latencyTarget && gaps == 0 && duplicates == 0
            && regressions == 0 && errors == 0
        var report = PhaseReport(
            kind: stall == nil ? "rate" : "stall", rate: rate, sent: sent, driverErrors: errors, driverMaxLagMs: maxLag,
            latency: latency, deliveriesPerSecond: Double(deliveries) / sendSeconds, coalesced: coalesced, gaps: gaps,
            duplicates: duplicates, regressions: regressions,
            hubCPUPercent: ((hubAfter?.cpuSeconds ?? 0) - (hubBefore?.cpuSeconds ?? 0)) / wall * 100,
            hubMemoryMiB: Double(hubAfter?.residentBytes ?? 0) / 1_048_576,
            passed: passed, stalledClient: nil)
        if let stall {
            let tracker = stall.summary
            report.stalledClient = StalledClient(
                stallSeconds: plan.seconds, deliveries: tracker.deliveries, coalesced: tracker.coalesced,
                latency: Percentiles(tracker.delays), caughtUp: (settled[stall.name] ?? 0) == 0)
        }
        return report
    }

    /// Each device's last `seq` after the drivers' reports so far (`totals[i]` is driver i's count).
    func expectedSeqs(_ fleet: Fleet, totals: [Int]) -> [String: UInt64] {
        var expected: [String: UInt64] = [:]
        for (driver, ids) in fleet.driverDevices.enumerated() {
            for (index, id) in ids.enumerated() {
                expected[id] = OpenLoopSchedule.expectedSeq(index: index, devices: ids.count, reports: totals[driver])
            }
        }
        return expected
    }

    /// Waits until every client has reached every watched device's last report, or the settle time
    /// passes; returns the devices still missing per client.
    func settle(_ clients: [LoadClient], expected: [String: UInt64]) async -> [String: Int] {
        let deadline = ContinuousClock.now + .seconds(plan.settleSeconds)
        let watched = clients.map { client in client.watched.map { ids in expected.filter { ids.contains($0.key) } } ?? expected }
        var missing: [String: Int] = [:]
        repeat {
            missing = [:]
            for (client, expected) in zip(clients, watched) {
                let count = client.missing(expected)
                if count > 0 { missing[client.name] = count }
            }
            if missing.isEmpty { return [:] }
            try? await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        return missing
    }

    /// Clients toggle OnOff devices at the plan's command rate (open loop, spread over the clients), each
    /// call timed from its due time to its answer. The traits are taken from the clients' caches before the
    /// phase, as an app holds the trait it toggles: what is timed is `toggle()`, not the cache lookup.
    func commandPhase(_ fleet: Fleet) async -> CommandReport {
        let targets = fleet.onOffDevices
        let results = CommandResults()
        // `watch` clients have no Home to send commands with.
        let clients = fleet.clients.filter { $0.home != nil }
        // Started once the traits are looked up (below).
        var schedule = OpenLoopSchedule(start: 0, rate: plan.commandRate, seconds: plan.commandSeconds)
        guard !targets.isEmpty, !clients.isEmpty, schedule.total > 0 else { return CommandReport(rate: plan.commandRate, sent: 0, succeeded: 0, errors: [:], roundTrip: Percentiles(.delays())) }
        // Call k toggles target (7919 k) through client k, each pair's trait looked up once.
        var traits: [Int: Result<Matter.OnOffTrait, any Error>] = [:]
        var planned: [Result<Matter.OnOffTrait, any Error>] = []
        for k in 0..<schedule.total {
            let (c, t) = (k % clients.count, (k * 7919) % targets.count)
            let key = t * clients.count + c
            if traits[key] == nil {
                do { traits[key] = .success(try await clients[c].onOffTrait(targets[t])) } catch { traits[key] = .failure(error) }
            }
            planned.append(traits[key]!)
        }
        let calls = planned
        schedule.start = LoadProbe.now() + 1_000_000
        await Self.startCalls(on: schedule) { k, due, woke in
            do {
                let called = LoadProbe.now()
                try await calls[k].get().toggle()
                let answered = LoadProbe.now()
                results.state.withLock {
                    _ = $0.rtt.record((answered - due) / 1000)
                    _ = $0.fromCall.record((answered - called) / 1000)
                    _ = $0.late.record((woke - min(woke, due)) / 1000)
                    $0.ok += 1
                }
            } catch {
                results.state.withLock { $0.errors["\(HomeError.from(error).code)", default: 0] += 1 }
            }
        }
        return results.state.withLock {
            CommandReport(
                rate: plan.commandRate, sent: schedule.total, succeeded: $0.ok, errors: $0.errors, roundTrip: Percentiles($0.rtt),
                fromCall: Percentiles($0.fromCall), generatorLate: Percentiles($0.late))
        }
    }

    /// Starts `call(k, due, woke)` as a task at each due time of `schedule` (`woke`: when the thread woke for
    /// it), from a thread of its own that sleeps
    /// with `nanosleep` (its timer slack set to 1 ns where `/proc` allows); returns once every call has
    /// returned. A `Task.sleep` per call went through libdispatch's timer thread and woke about 0.3 ms late,
    /// which counted in every round trip measured from the due time.
    static func startCalls(
        on schedule: OpenLoopSchedule, _ call: @escaping @Sendable (Int, UInt64, UInt64) async -> Void
    ) async {
        let running = DispatchGroup()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                // prctl(PR_SET_TIMERSLACK) is variadic, which Swift does not import; this file is its twin (for
                // the thread whose id is in the path).
                if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") {
                    let tid = (link as NSString).lastPathComponent
                    try? "1".write(toFile: "/proc/\(tid)/timerslack_ns", atomically: false, encoding: .utf8)
                }
                for k in 0..<schedule.total {
                    let due = schedule.due(k)
                    let now = LoadProbe.now()
                    if due > now {
                        var time = timespec(tv_sec: Int((due - now) / 1_000_000_000), tv_nsec: Int((due - now) % 1_000_000_000))
                        nanosleep(&time, nil)
                    }
                    let woke = LoadProbe.now()
                    running.enter()
                    Task {
                        await call(k, due, woke)
                        running.leave()
                    }
                }
                running.notify(queue: .global()) { continuation.resume() }
            }
        }
    }
}

extension LoadClient {
    /// The OnOff trait of device `id` as the cache holds it.
    func onOffTrait(_ id: String) async throws -> Matter.OnOffTrait {
        guard let home else { throw HomeError(.failedPrecondition, "a watch client sends no commands") }
        return try await home.onOffTrait(id)
    }
}

extension Home {
    /// The OnOff trait of device `id` as the cache holds it (once synced); `notFound` when there is none.
    func onOffTrait(_ id: String) async throws -> Matter.OnOffTrait {
        var updates = deviceUpdates(id: id).makeAsyncIterator()
        guard let device = try await updates.next(),
            let onOff = device.types.all.instances.lazy.compactMap({ $0.traits[Matter.OnOffTrait.self] }).first
        else { throw HomeError(.notFound, "no OnOff device '\(id)' in the cache") }
        return onOff
    }
}

/// The command phase's tally, shared by its calls.
final class CommandResults: Sendable {
    let state = Mutex<(rtt: Histogram<UInt64>, fromCall: Histogram<UInt64>, late: Histogram<UInt64>, ok: Int, errors: [String: Int])>(
        (.delays(), .delays(), .delays(), 0, [:]))
}

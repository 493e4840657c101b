import Foundation
import HearthModel
import HearthProto
import HearthWire
import SwiftProtobuf
import Synchronization
import Testing

/// What a trial's tasks count while the hub runs.
final class LiveCounters: Sendable {
    /// The newest revision the watcher saw.
    let seen = Atomic<UInt64>(0)
    /// Responses whose revision went backwards.
    let outOfOrder = Atomic<Int>(0)
    let reports = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
}

/// kill -9 of the hub process, again and again, under mixed load: renames from two writers, a driver
/// reporting, a watcher reading. After each kill the hub restarts over the same data and must have lost no
/// acknowledged rename, reused no revision and resumed no watcher across a silent gap.
///
/// CI runs 3 trials; `tools/crash/run.sh 100` runs the 100-trial figures (`HEARTH_CRASH_TRIALS`).
@Suite("kill -9 trials under mixed load")
struct HubCrashTrialsTests {
    /// What one trial counted.
    struct Outcome: Sendable {
        var acknowledged = 0
        var lost = 0
        var reused = 0
        var silentGaps = 0
        var seen: UInt64 = 0
        var reports = 0
    }

    @Test("kill -9 at a random moment: 0 acknowledged renames lost, 0 revisions reused, 0 silent gaps")
    func killTrials() async throws {
        let trials = ProcessInfo.processInfo.environment["HEARTH_CRASH_TRIALS"].flatMap(Int.init) ?? 3
        try await withTemporaryDirectory { dir in
            let config = try HubCrashTests.writeConfig(in: dir)
            let data = dir.appendingPathComponent("data")
            var rooms: [String] = []
            var total = Outcome()
            for trial in 0..<trials {
                let outcome = try await Self.trial(trial, data: data, config: config, rooms: &rooms)
                total.acknowledged += outcome.acknowledged
                total.lost += outcome.lost
                total.reused += outcome.reused
                total.silentGaps += outcome.silentGaps
                total.reports += outcome.reports
                #expect(outcome.lost == 0 && outcome.reused == 0 && outcome.silentGaps == 0, "trial \(trial): \(outcome)")
            }
            print(
                "CRASH-TRIALS trials=\(trials) acknowledged_renames=\(total.acknowledged) reports_sent=\(total.reports)"
                    + " lost=\(total.lost) reused=\(total.reused) silent_gaps=\(total.silentGaps)")
            #expect(total.acknowledged >= trials, "too few renames were acknowledged to test anything")
        }
    }

    /// One trial: start, load, kill at a random moment (100–600 ms in), restart, check, stop cleanly.
    static func trial(_ number: Int, data: URL, config: URL, rooms: inout [String]) async throws -> Outcome {
        let hub = try await HubProcess(directory: data, config: config)
        let client = HubClient(WireClient(target: .tcp(host: "127.0.0.1", port: hub.port)), port: hub.port)
        if rooms.isEmpty {
            for i in 0..<8 {
                rooms.append(try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = "room \(i)" }).id)
            }
        }
        let info = try await client.call(HomeMethods.getHub, .init())
        let acknowledged = Acknowledged()
        let live = LiveCounters()
        let targets = rooms
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    for round in 0..<1_000_000 {
                        let room = targets[(round * 2 + writer) % targets.count]
                        let name = "t\(number)w\(writer)r\(round)"
                        guard
                            let stored = try? await client.call(
                                HomeMethods.renameRoom, .with { $0.roomID = room; $0.name = name }, timeout: .seconds(5))
                        else { return }
                        acknowledged.names.withLock { $0[room] = stored.name }
                        acknowledged.acknowledgements.add(1, ordering: .relaxed)
                    }
                }
            }
            group.addTask {
                _ = try? await withTestDriver(client, devices: [onOffLight("lamp")]) { driver in
                    var value: UInt64 = 0
                    while !live.stop.load(ordering: .relaxed) {
                        value += 1
                        driver.report("lamp", trait: 0x0003, [0: .uint(value % 60_000)])
                        live.reports.add(1, ordering: .relaxed)
                        try await Task.sleep(for: .microseconds(500))
                    }
                }
            }
            group.addTask {
                _ = try? await client.watch(.from(info.revision, epoch: info.epoch), limit: 10_000_000) { responses in
                    let revision = responses.last?.revision ?? 0
                    if revision < live.seen.load(ordering: .relaxed) { live.outOfOrder.add(1, ordering: .relaxed) }
                    live.seen.store(max(revision, live.seen.load(ordering: .relaxed)), ordering: .relaxed)
                    return live.stop.load(ordering: .relaxed)
                }
            }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 100...600)))
            hub.kill()
            live.stop.store(true, ordering: .relaxed)
            await group.waitForAll()
        }
        client.wire.close()

        var outcome = Outcome(
            acknowledged: acknowledged.count, seen: live.seen.load(ordering: .relaxed), reports: live.reports.load(ordering: .relaxed))
        outcome.silentGaps += live.outOfOrder.load(ordering: .relaxed)
        let restarted = try await HubProcess(directory: data, config: config)
        defer { restarted.terminate() }
        let after = HubClient(WireClient(target: .tcp(host: "127.0.0.1", port: restarted.port)), port: restarted.port)
        defer { after.wire.close() }
        // Every acknowledged rename is stored (or a later one of the same writer that landed unacknowledged).
        let snapshot = try await after.watch(.from(0)) { $0.synced }
        let names = Dictionary(snapshot.changes.filter { $0.room.id != "" }.map { ($0.room.id, $0.room.name) }) { _, b in b }
        for (room, name) in acknowledged.names.withLock({ $0 }) {
            guard let stored = names[room], stored.hasPrefix(String(name.prefix { $0 != "r" })),
                let storedRound = Int(stored.split(separator: "r").last ?? ""),
                let ackedRound = Int(name.split(separator: "r").last ?? ""), storedRound >= ackedRound
            else {
                outcome.lost += 1
                continue
            }
        }
        // No revision given out twice: the restarted hub is past everything the watcher saw.
        if let revision = snapshot.last?.revision, revision <= outcome.seen { outcome.reused += 1 }
        // A watcher resuming from what it saw is told to re-list, or resumes with nothing missing.
        if outcome.seen > info.revision {
            let resumed = try await after.watch(.from(outcome.seen, epoch: info.epoch)) { _ in true }
            if resumed.first?.hasRelist != true { outcome.silentGaps += 1 }
        }
        return outcome
    }
}

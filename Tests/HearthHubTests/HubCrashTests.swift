import Foundation
import HearthHub
import HearthModel
import HearthProto
import HearthTesting
import HearthWire
import SwiftProtobuf
import Synchronization
import Testing

/// The `hearth-hub` executable as a child process (built by `swift build --build-tests` beside the test bundle).
final class HubProcess: Sendable {
    let process: Process
    let port: Int

    static var executable: URL {
        builtProduct("hearth-hub")
    }

    init(directory: URL, config: URL, arguments: [String] = []) async throws {
        process = Process()
        process.executableURL = Self.executable
        process.arguments = [
            "--config", config.path, "--data-dir", directory.path, "--listen", "127.0.0.1:0", "--log-level", "warning",
        ] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        try process.run()
        let handle = stdout.fileHandleForReading
        // A METRICS line comes first when the config serves metrics.
        guard let line = await ChildProcessIO.readLine(handle, { !$0.hasPrefix("METRICS ") }) else {
            throw HubProcessError.exitedBeforeListening
        }
        // "LISTENING <tcp address> [<unix socket>…]": the port ends the first address.
        let first = line.split(separator: " ").dropFirst().first ?? ""
        guard line.hasPrefix("LISTENING "), let colon = first.lastIndex(of: ":"), let port = Int(first[first.index(after: colon)...]) else {
            process.terminate()
            throw HubProcessError.unexpectedLine(line)
        }
        self.port = port
    }

    /// SIGKILL: no shutdown code runs.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func terminate() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// Room names the hub acknowledged, by room id.
final class Acknowledged: Sendable {
    let names = Mutex<[String: String]>([:])
    /// Renames acknowledged so far (all rooms).
    let acknowledgements = Atomic<Int>(0)
    var count: Int { acknowledgements.load(ordering: .relaxed) }
}

enum HubProcessError: Error {
    case exitedBeforeListening
    case unexpectedLine(String)
}

@Suite("Crash safety of the hearth-hub process")
struct HubCrashTests {
    /// The hubs of these tests save states every 10 ms (the default is 1 s), so that a kill lands during or
    /// between state saves, not always before the first one.
    static func writeConfig(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("hub.json")
        let json = #"""
            {"clients": [{"token": "admin-token", "user": "admin", "role": "admin"}],
             "drivers": [{"id": "lights", "token": "lights-token"}],
             "state_save_interval_ms": 10}
            """#
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("kill -9 during a burst of renames: every acknowledged rename is there after a restart")
    func killDuringRenames() async throws {
        try await withTemporaryDirectory { dir in
            let data = dir.appendingPathComponent("data")
            let config = try Self.writeConfig(in: dir)
            let first = try await HubProcess(directory: data, config: config)
            let client = HubClient(WireClient(target: .tcp(host: "127.0.0.1", port: first.port)), port: first.port)
            var created: [String] = []
            for i in 0..<40 {
                created.append(try await client.call(HomeMethods.createRoom, .with { $0.structureID = "home"; $0.name = "room \(i)" }).id)
            }
            let rooms = created
            let acknowledged = Acknowledged()
            // Four writers rename rooms as fast as the hub acknowledges; the hub is killed under them.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for round in 0..<10_000 {
                            let room = rooms[(round * 4 + writer) % rooms.count]
                            let name = "w\(writer)-r\(round)"
                            do {
                                let stored = try await client.call(HomeMethods.renameRoom, .with { $0.roomID = room; $0.name = name }, timeout: .seconds(5))
                                acknowledged.names.withLock { $0[room] = stored.name }
                                acknowledged.acknowledgements.add(1, ordering: .relaxed)
                            } catch {
                                return  // the hub is gone
                            }
                        }
                    }
                }
                // Kill once a good number of renames is acknowledged (bounded wait), mid-burst.
                for _ in 0..<2000 where acknowledged.count < 100 {
                    try await Task.sleep(for: .milliseconds(10))
                }
                first.kill()
                try await group.waitForAll()
            }
            client.wire.close()
            let acked = acknowledged.names.withLock { $0 }
            #expect(acknowledged.count >= 100, "too few renames were acknowledged before the kill to test anything")
            #expect(acked.count > 10, "too few rooms were renamed before the kill to test anything")

            let second = try await HubProcess(directory: data, config: config)
            defer { second.terminate() }
            let after = HubClient(WireClient(target: .tcp(host: "127.0.0.1", port: second.port)), port: second.port)
            defer { after.wire.close() }
            let snapshot = try await after.watch(.from(0)) { $0.synced }
            let names = Dictionary(snapshot.changes.filter { $0.room.id != "" }.map { ($0.room.id, $0.room.name) }) { _, b in b }
            for (room, name) in acked {
                // A rename sent but not yet acknowledged when the hub died may also have landed: same writer, later round.
                let stored = try #require(names[room])
                let ackedRound = Int(name.split(separator: "r").last!)!
                let storedRound = Int(stored.split(separator: "r").last!) ?? -1
                #expect(stored.hasPrefix(String(name.prefix(2))) && storedRound >= ackedRound, "room \(room): acknowledged \(name), stored \(stored)")
            }
        }
    }

    @Test("kill -9 while state flows: no revision is reused, a watcher that saw lost ones re-lists, saved state is unconfirmed")
    func killDuringReports() async throws {
        try await withTemporaryDirectory { dir in
            // Reports published from memory reach a watcher; the hub dies right after.
            let (info, seen) = try await Self.reportAndStop(in: dir, reports: 200) { $0.kill() }
            #expect(seen > info.revision)
            let (second, after) = try await Self.restart(in: dir)
            defer { second.terminate() }
            defer { after.wire.close() }
            // What the watcher saw may be lost: it must re-list rather than resume with a silent gap.
            let resumed = try await after.watch(.from(seen, epoch: info.epoch)) { _ in true }
            #expect(resumed.first?.relist.reason == .tooOld)
            let snapshot = try await after.watch(.from(0)) { $0.synced }
            let restarted = try #require(snapshot.last?.revision)
            #expect(restarted > seen, "revision \(restarted) after the restart is not past \(seen) seen before the kill")
            let identifies = snapshot.changes.compactMap { change in
                change.device.types.first?.traits.first(where: { $0.traitID == 0x0003 })
            }
            let identify = try #require(identifies.last)
            // The last saved value of the trait, not yet confirmed by its driver.
            #expect(identify.confirmed == false)
            #expect((identify.attributes.first?.value.uintValue ?? 0) <= 200)
        }
    }

    @Test("a clean stop saves the newest state and the log: a watcher resumes without a relist")
    func cleanStopKeepsState() async throws {
        try await withTemporaryDirectory { dir in
            let (info, seen) = try await Self.reportAndStop(in: dir, reports: 50) { $0.terminate() }
            let (second, after) = try await Self.restart(in: dir)
            defer { second.terminate() }
            defer { after.wire.close() }
            let resumed = try await after.watch(.from(seen, epoch: info.epoch)) { seen in
                seen.changes.contains { $0.trait.state.confirmed == false }
            }
            #expect(resumed.first?.hasRelist == false)
            let identify = resumed.changes.compactMap { change in
                change.device.types.first?.traits.first(where: { $0.traitID == 0x0003 })
            }.last
            #expect(identify?.attributes.first?.value.uintValue == 50)
            #expect(resumed.changes.allSatisfy { $0.revision > seen })
        }
    }

    /// Starts a hub over `dir`, has a driver report Identify values 1…`reports` for a lamp, waits until a
    /// watcher saw the last one, then stops the hub with `stop`.
    /// - Returns: the hub's info before the reports, and the newest revision the watcher saw.
    static func reportAndStop(in dir: URL, reports: Int, stop: (HubProcess) -> Void) async throws
        -> (info: Hearth_V1_HubInfo, seen: UInt64)
    {
        let first = try await HubProcess(directory: dir.appendingPathComponent("data"), config: try writeConfig(in: dir))
        let client = HubClient(WireClient(target: .tcp(host: "127.0.0.1", port: first.port)), port: first.port)
        defer { client.wire.close() }
        // Past the first commit (the configured structure): a watch from revision 0 would be a snapshot.
        let info = try await eventually { () -> Hearth_V1_HubInfo? in
            let info = try await client.call(HomeMethods.getHub, .init())
            return info.revision > 0 ? info : nil
        }
        let seen: UInt64 = try await withTestDriver(client, devices: [onOffLight("lamp")]) { driver in
            for value in 1...reports { driver.report("lamp", trait: 0x0003, [0: .uint(UInt64(value))]) }
            let responses = try await client.watch(.from(info.revision, epoch: info.epoch)) { seen in
                seen.changes.contains { $0.trait.state.attributes.first?.value.uintValue == UInt64(reports) }
            }
            return responses.map(\.revision).max() ?? 0
        }
        stop(first)
        return (info, seen)
    }

    /// A second hub process over the same data, and a client of it.
    static func restart(in dir: URL) async throws -> (HubProcess, HubClient) {
        let second = try await HubProcess(directory: dir.appendingPathComponent("data"), config: try writeConfig(in: dir))
        return (second, HubClient(WireClient(target: .tcp(host: "127.0.0.1", port: second.port)), port: second.port))
    }
}

import Foundation
@testable import HearthHub
import HearthModel
import HearthProto
import HearthWire
import SwiftProtobuf
import Testing

/// The hub's supervision of plugin processes, with real child processes (`/bin/sh` scripts here; the shipped
/// drivers in DriverProcessTests).
@Suite("Supervision: plugin environment, crash loops, restart by hand, shutdown")
struct SupervisionTests {
    /// Fast policy for tests: no stagger, 20 ms backoff, three crashes make a failure.
    static func fastPolicy() -> SupervisionPolicy {
        var policy = SupervisionPolicy()
        policy.stagger = .zero
        policy.backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(100))
        policy.maxCrashes = 3
        policy.stopGrace = .seconds(2)
        return policy
    }

    static func shell(_ id: String, _ script: String) -> PluginSpec {
        PluginSpec(id: id, executable: "/bin/sh", arguments: ["-c", script])
    }

    @Test("a plugin gets the hub's address, its id, a launch token and an open stdin; shutdown stops it")
    func environmentAndShutdown() async throws {
        try await withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("env").path
            let script = """
                echo "$HEARTH_HUB|$HEARTH_DRIVER_ID|$HEARTH_SUPERVISED|$HEARTH_DRIVER_TOKEN|$$" > \(out).tmp
                mv \(out).tmp \(out)
                exec cat
                """
            var pid: Int32 = 0
            try await withHub(directory: dir, configure: {
                $0.plugins = [Self.shell("probe", script)]
                $0.supervision = Self.fastPolicy()
            }) { hub, client in
                let line = try await eventually { try? String(contentsOfFile: out, encoding: .utf8) }
                let fields = line.trimmingCharacters(in: .newlines).split(separator: "|", omittingEmptySubsequences: false)
                #expect(fields.count == 5)
                #expect(fields[0] == "127.0.0.1:\(client.port)")
                #expect(fields[1] == "probe" && fields[2] == "1")
                #expect(fields[3].hasPrefix("launch-"))
                pid = Int32(fields[4]) ?? 0
                // The launch token is a driver token for "probe" while the process lives.
                #expect(
                    (try? hub.access.authenticate(authorization: "Bearer \(fields[3])")) == .driver(id: "probe"))
                // `cat` still runs: its standard input is open.
                try await Task.sleep(for: .milliseconds(100))
                #expect(kill(pid, 0) == 0)
                let status = try await client.call(HomeMethods.listDrivers, .init()).drivers.first { $0.driverID == "probe" }
                #expect(status?.pid == pid)
            }
            #expect(pid > 0)
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the hub stopped and reaped its plugin")
        }
    }

    @Test("a plugin that keeps crashing is FAILED in ListDrivers and the metrics until RestartDriver")
    func crashLoop() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir, configure: {
                $0.plugins = [Self.shell("flaky", "echo starting >&2; exit 3")]
                $0.supervision = Self.fastPolicy()
            }) { hub, client in
                let failed = try await eventually {
                    try await client.call(HomeMethods.listDrivers, .init()).drivers
                        .first { $0.driverID == "flaky" && $0.processState == .failed }
                }
                #expect(failed.lastExit == "exited with status 3")
                #expect(failed.restarts == 2 && failed.pid == 0 && !failed.connected)
                #expect(failed.message.contains("restart it by hand"))
                let metrics = await hub.metricsText()
                #expect(metrics.contains(#"hearth_driver_failed{driver="flaky"} 1"#))
                #expect(metrics.contains(#"hearth_driver_restarts_total{driver="flaky"} 2"#))

                await expectStatus(.permissionDenied) {
                    _ = try await client.call(HomeMethods.restartDriver, .with { $0.driverID = "flaky" }, token: Tokens.viewer)
                }
                await expectStatus(.notFound) {
                    _ = try await client.call(HomeMethods.restartDriver, .with { $0.driverID = "nobody" })
                }
                await expectStatus(.failedPrecondition) {
                    _ = try await client.call(HomeMethods.restartDriver, .with { $0.driverID = "lights" })
                }
                let restarted = try await client.call(HomeMethods.restartDriver, .with { $0.driverID = "flaky" })
                #expect(restarted.processState != .failed && restarted.message.isEmpty)
                // It still crashes, so it fails again: three more exits.
                _ = try await eventually {
                    try await client.call(HomeMethods.listDrivers, .init()).drivers
                        .first { $0.driverID == "flaky" && $0.processState == .failed && $0.restarts == 4 }
                }
            }
        }
    }

    @Test("RestartDriver stops a running plugin (SIGTERM) and starts a new process without counting a crash")
    func restartRunning() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir, configure: {
                $0.plugins = [Self.shell("steady", "exec sleep 600")]
                $0.supervision = Self.fastPolicy()
            }) { _, client in
                let first = try await eventually {
                    try await client.call(HomeMethods.listDrivers, .init()).drivers.first { $0.driverID == "steady" && $0.pid > 0 }
                }
                _ = try await client.call(HomeMethods.restartDriver, .with { $0.driverID = "steady" })
                let second = try await eventually {
                    try await client.call(HomeMethods.listDrivers, .init()).drivers
                        .first { $0.driverID == "steady" && $0.pid > 0 && $0.pid != first.pid }
                }
                #expect(second.restarts == 0 && second.lastExit == "killed by signal 15")
                #expect(kill(first.pid, 0) == -1)
            }
        }
    }
}

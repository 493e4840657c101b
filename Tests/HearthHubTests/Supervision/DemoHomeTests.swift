import Foundation
import HearthHub
import HearthSDK
import HearthTesting
import Testing

/// `hearth-hub` with deploy/hearth-hub.demo.json, as `tools/run.sh` starts it: the shipped drivers under
/// supervision make a believable home.
@Suite("The demo home")
struct DemoHomeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("the demo config starts its drivers: dozens of devices online in several rooms; SIGTERM stops them all")
    func demoHome() async throws {
        try await withTemporaryDirectory { dir in
            let hub = try await HubProcess(
                directory: dir, config: Self.root.appendingPathComponent("deploy/hearth-hub.demo.json"),
                arguments: ["--metrics-listen", "127.0.0.1:0"])
            defer { hub.terminate() }
            let home = try Home.connect(to: "127.0.0.1:\(hub.port)", token: "demo-admin")
            defer { home.close() }
            let (drivers, devices) = try await eventually { () -> ([DriverInfo], Set<HomeDevice>)? in
                let drivers = try await home.drivers()
                let devices = try await home.devices().list()
                guard drivers.filter({ $0.processState == .running && $0.isConnected }).count == 4,
                    devices.count == drivers.map(\.devices).reduce(0, +),
                    devices.allSatisfy({ $0.sourceConnectivity.connectivityState != .unknown })
                else { return nil }
                return (drivers, devices)
            }
            #expect(devices.count >= 30)
            let rooms = try await home.rooms().list()
            #expect(rooms.count >= 5, "rooms: \(rooms.map(\.name))")
            #expect(Set(devices.compactMap(\.roomID)).count >= 5)
            let pids = drivers.map(\.pid)
            home.close()
            hub.terminate()
            // Gone: no such process, or a zombie left to a parent that does not reap (PID 1 in a container).
            _ = try await eventually(timeout: .seconds(10)) { pids.allSatisfy(Self.isGone) ? true : nil }
            _ = try await eventually(timeout: .seconds(15)) { hub.process.isRunning ? nil : true }
            #expect(
                hub.process.terminationReason == .exit && hub.process.terminationStatus == 0,
                "SIGTERM is a clean stop, with the metrics endpoint on")
        }
    }

    static func isGone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // "pid (comm) S …": the state follows the last ')'.
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}

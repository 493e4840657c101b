import Foundation
import HearthDriverKit
import HearthHub
import HearthModel
import HearthProto
import HearthTesting
import HearthTypes
import HearthWire
import Synchronization
import Testing

/// `hearthctl` as a script would run it, against a real hub with a real driver.
@Suite("hearthctl against a real hub")
struct HearthctlTests {
    static func hearthctl(_ port: Int, _ arguments: [String], token: String = Tokens.admin) async throws -> (Int32?, String) {
        let executable = builtProduct("hearthctl")
        let outcome = try await ChildProcessIO.run(
            executable, arguments + ["--hub", "127.0.0.1:\(port)", "--token", token],
            timeout: .seconds(60))
        return (outcome.status, outcome.output)
    }

    /// A hub with a `lights` driver holding a desk lamp in the Office and a spare lamp.
    static func withHome(_ body: (Int, Driver) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                var lamp = dimmableLight("lamp", name: "Desk lamp")
                lamp.room = "Office"
                driver.add(lamp)
                driver.add(dimmableLight("spare", name: "Spare lamp"))
                driver.onCommand(Matter.OnOffTrait.ToggleCommand.self) { _, context in
                    let on = try context.device.attributes(Matter.OnOffTrait.self).onOff ?? false
                    try context.device.report(Matter.OnOffTrait.self) { $0.onOff = !on }
                }
                driver.onCommand(Matter.LevelControlTrait.MoveToLevelCommand.self) { command, context in
                    try context.device.report(Matter.LevelControlTrait.self) { $0.currentLevel = command.level }
                }
                try await withDriver(driver) {
                    try await client.waitForDevice("lights/spare") { $0.connectivity == .online }
                    try await body(client.port, driver)
                }
            }
        }
    }

    @Test("lists structures, rooms, devices and drivers as tables and JSON; shows a device")
    func listing() async throws {
        try await Self.withHome { port, _ in
            let (status, devices) = try await Self.hearthctl(port, ["devices"])
            #expect(status == 0, "\(devices)")
            #expect(devices.contains("lights/lamp") && devices.contains("Desk lamp") && devices.contains("Office"))
            #expect(devices.contains("DimmableLight") && devices.contains("online/local"))
            let (_, json) = try await Self.hearthctl(port, ["devices", "--json", "--room", "Office"])
            let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
            #expect(parsed?.map { $0["id"] as? String } == ["lights/lamp"])
            let (_, rooms) = try await Self.hearthctl(port, ["rooms"])
            #expect(rooms.contains("Office") && rooms.contains("DEVICES"))
            let (_, structures) = try await Self.hearthctl(port, ["structures", "--json"])
            #expect(structures.contains("\"name\" : \"Home\""))
            let (_, show) = try await Self.hearthctl(port, ["show", "Desk lamp"])
            #expect(show.contains("endpoint 1: DimmableLight (primary)") && show.contains("onOff = false"), "\(show)")
            #expect(show.contains("vendorName = \"Hearth\""), "\(show)")
            let (_, drivers) = try await Self.hearthctl(port, ["drivers"])
            #expect(drivers.contains("lights") && drivers.contains("yes"), "\(drivers)")
        }
    }

    @Test("renames, creates and deletes rooms, moves devices, writes attributes and runs commands")
    func changes() async throws {
        try await Self.withHome { port, driver in
            #expect(try await Self.hearthctl(port, ["rename", "device", "Spare lamp", "Reading lamp"]) == (0, "Reading lamp\n"))
            let (status, id) = try await Self.hearthctl(port, ["room", "create", "Den"])
            #expect(status == 0 && id.hasPrefix("r"), "\(id)")
            #expect(try await Self.hearthctl(port, ["move", "--to", "Den", "Reading lamp", "lights/lamp"]).0 == 0)
            let (_, den) = try await Self.hearthctl(port, ["devices", "--room", "Den", "--json"])
            #expect((try JSONSerialization.jsonObject(with: Data(den.utf8)) as? [Any])?.count == 2)
            #expect(try await Self.hearthctl(port, ["room", "delete", "Den"]).0 == 0)
            #expect(try await Self.hearthctl(port, ["set", "lights/lamp", "OnOff.onTime", "30"]).0 == 0)
            #expect(try await Self.hearthctl(port, ["call", "Desk lamp", "OnOff.toggle"]).0 == 0)
            let (moved, out) = try await Self.hearthctl(
                port, ["call", "Desk lamp", "LevelControl.moveToLevel", "level=128", "transitionTime=null", "optionsMask=0", "optionsOverride=0"])
            #expect(moved == 0, "\(out)")
            _ = try await eventually {
                let lamp = driver.device("lamp")!
                return try lamp.attributes(Matter.OnOffTrait.self).onTime == 30
                    && lamp.attributes(Matter.OnOffTrait.self).onOff == true
                    && lamp.attributes(Matter.LevelControlTrait.self).currentLevel == 128 ? true : nil
            }
        }
    }

    @Test("watch prints each change as it happens and stops after --count")
    func watch() async throws {
        try await Self.withHome { port, driver in
            let finished = Mutex(false)
            let run = Task {
                defer { finished.withLock { $0 = true } }
                return try await Self.hearthctl(port, ["watch", "--count", "2", "--json", "--timeout", "20"])
            }
            // Changes every 100 ms until the watcher has printed two lines and quit (at most 20 s).
            for level in 1...200 where !finished.withLock({ $0 }) {
                try driver.device("lamp")!.report(Matter.LevelControlTrait.self) { $0.currentLevel = UInt8(level) }
                try await Task.sleep(for: .milliseconds(100))
            }
            let (status, output) = try await run.value
            #expect(status == 0, "\(output)")
            let lines = output.split(separator: "\n").filter { $0.hasPrefix("{") }
            #expect(lines.count == 2, "\(output)")
            #expect(lines.allSatisfy { $0.contains(#""kind":"device""#) && $0.contains("lamp") }, "\(output)")
        }
    }

    @Test("failures exit with the documented codes and say why on standard error", arguments: [
        (["show", "no such lamp"], Int32(3), "notFound: no device 'no such lamp'"),
        (["set", "lights/lamp", "LevelControl.onLevel", "255"], 4, "above the maximum"),
        (["set", "lights/lamp", "OnOff.onOff", "maybe"], 4, "is not a bool"),
        (["call", "lights/lamp", "OnOff.explode"], 4, "has no command"),
        (["rename", "structure", "Home", "Flat"], 5, "permissionDenied"),
        (["restart-driver", "lights"], 5, "permissionDenied"),
        (["devices"], 6, "unauthenticated"),
    ])
    func failures(arguments: [String], code: Int32, message: String) async throws {
        try await Self.withHome { port, _ in
            let token =
                switch code {
                case 5: Tokens.viewer
                case 6: "wrong-token"
                default: Tokens.admin
                }
            let (status, output) = try await Self.hearthctl(port, arguments, token: token)
            #expect(status == code, "\(output)")
            #expect(output.contains("hearthctl: ") && output.contains(message), "\(output)")
        }
    }

    @Test("shell completion scripts for bash, zsh and fish name every subcommand", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) async throws {
        let outcome = try await ChildProcessIO.run(
            builtProduct("hearthctl"), ["--generate-completion-script", shell], timeout: .seconds(30))
        #expect(outcome.status == 0, "\(outcome.output)")
        for subcommand in ["devices", "show", "watch", "call", "set", "move", "restart-driver"] {
            #expect(outcome.output.contains(subcommand), "\(shell) script lacks \(subcommand)")
        }
    }

    @Test("an unreachable hub is 'unavailable' (exit 7) within the timeout")
    func unreachable() async throws {
        let executable = builtProduct("hearthctl")
        let outcome = try await ChildProcessIO.run(
            executable, ["devices", "--hub", "127.0.0.1:1", "--token", "t", "--timeout", "2"], timeout: .seconds(30))
        #expect(outcome.status == 8 || outcome.status == 7, "\(outcome.output)")
    }
}

import ArgumentParser
import HearthSDK

struct ListDrivers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drivers", abstract: "List the drivers: connected, devices, and process state for supervised ones.")
    @OptionGroup var hub: HubOptions

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let drivers = try await home.drivers()
            if hub.json {
                return try Output.json(drivers.map {
                    [
                        "id": $0.id, "connected": $0.isConnected, "state": $0.processState.rawValue, "pid": $0.pid,
                        "restarts": $0.restarts, "lastExit": $0.lastExit, "message": $0.message, "devices": $0.devices,
                    ] as [String: Any]
                })
            }
            Output.table(
                ["ID", "CONNECTED", "STATE", "DEVICES", "RESTARTS", "LAST EXIT"],
                drivers.map {
                    [$0.id, $0.isConnected ? "yes" : "no", $0.processState.rawValue, "\($0.devices)", "\($0.restarts)",
                     $0.message.isEmpty ? $0.lastExit : "\($0.lastExit) — \($0.message)"]
                })
        }
    }
}

struct RestartDriver: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart-driver", abstract: "Restart a driver the hub supervises (also one marked failed).")
    @OptionGroup var hub: HubOptions
    @Argument var driver: String

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let info = try await home.restartDriver(id: driver)
            print("\(info.id): \(info.processState.rawValue)")
        }
    }
}

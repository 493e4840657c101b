import ArgumentParser
import Foundation
import HearthSDK

struct ListStructures: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "structures", abstract: "List the structures.")
    @OptionGroup var hub: HubOptions

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let structures = try await home.structures().list().sorted { $0.name < $1.name }
            if hub.json { return try Output.json(structures.map { ["id": $0.id, "name": $0.name] }) }
            Output.table(["ID", "NAME"], structures.map { [$0.id, $0.name] })
        }
    }
}

struct ListRooms: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rooms", abstract: "List the rooms.")
    @OptionGroup var hub: HubOptions

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let rooms = try await home.rooms().list().sorted { ($0.structureID, $0.name) < ($1.structureID, $1.name) }
            let devices = try await home.devices().list()
            let count = { (room: Room) in devices.filter { $0.roomID == room.id }.count }
            if hub.json {
                return try Output.json(rooms.map { ["id": $0.id, "name": $0.name, "structureId": $0.structureID, "devices": count($0)] })
            }
            Output.table(["ID", "NAME", "STRUCTURE", "DEVICES"], rooms.map { [$0.id, $0.name, $0.structureID, "\(count($0))"] })
        }
    }
}

struct ListDevices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the devices.")
    @OptionGroup var hub: HubOptions
    @Option(help: "Only the devices of this room (id or name).") var room: String?

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let rooms = try await home.rooms().list()
            var devices = try await home.devices().list()
            if let room {
                let id = try Resolve.room(room, in: rooms).id
                devices = devices.filter { $0.roomID == id }
            }
            let sorted = devices.sorted { $0.name < $1.name }
            let roomName = { (device: HomeDevice) in rooms.first { $0.id == device.roomID }?.name ?? "" }
            let typeNames = { (device: HomeDevice) in
                device.types.all.instances.map { Catalog.builtin.deviceType($0.deviceTypeID)?.name ?? "\($0.deviceTypeID)" }
            }
            if hub.json {
                return try Output.json(sorted.map { device in
                    [
                        "id": device.id, "name": device.name, "roomId": device.roomID ?? NSNull(),
                        "structureId": device.structureID ?? NSNull(), "room": roomName(device), "types": typeNames(device),
                        "connectivity": "\(device.sourceConnectivity.connectivityState)",
                        "locality": "\(device.sourceConnectivity.dataSourceLocality)",
                    ] as [String: Any]
                })
            }
            Output.table(
                ["ID", "NAME", "ROOM", "TYPES", "STATE"],
                sorted.map { [$0.id, $0.name, roomName($0), typeNames($0).joined(separator: ","), Output.state($0.sourceConnectivity)] })
        }
    }
}

struct ShowDevice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show a device: its types, traits, attributes, connectivity and locality.")
    @OptionGroup var hub: HubOptions
    @Argument(help: "Device id or name.") var device: String

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let device = try Resolve.device(device, in: try await home.devices().list())
            let rooms = try await home.rooms().list()
            var types: [[String: Any]] = []
            var lines = [
                "\(device.name)  (\(device.id))",
                "  room: \(rooms.first { $0.id == device.roomID }?.name ?? "-")  state: \(Output.state(device.sourceConnectivity))",
            ]
            for instance in device.types.all.instances {
                let typeName = Catalog.builtin.deviceType(instance.deviceTypeID)?.name ?? "\(instance.deviceTypeID)"
                lines.append("  endpoint \(instance.endpoint): \(typeName)\(instance.isPrimary ? " (primary)" : "")")
                var traits: [[String: Any]] = []
                for (id, data) in instance.traits.data.sorted(by: { $0.key < $1.key }) {
                    let schema = Catalog.builtin.trait(id)
                    lines.append("    \(schema?.name ?? "\(id)")  \(Output.state(data.metadata.sourceConnectivity))")
                    var attributes: [String: Any] = [:]
                    for (attribute, value) in data.attributes.sorted(by: { $0.key < $1.key }) {
                        let member = schema?.attributes.first { $0.id == attribute }
                        let name = member?.name ?? "\(attribute)"
                        lines.append("      \(name) = \(Output.text(value, type: member?.type, trait: schema))")
                        attributes[name] = Output.jsonValue(value)
                    }
                    traits.append([
                        "trait": schema?.name ?? "\(id)", "attributes": attributes,
                        "connectivity": "\(data.metadata.sourceConnectivity.connectivityState)",
                        "locality": "\(data.metadata.sourceConnectivity.dataSourceLocality)",
                    ])
                }
                types.append(["endpoint": instance.endpoint, "type": typeName, "primary": instance.isPrimary, "traits": traits])
            }
            if hub.json {
                return try Output.json([
                    "id": device.id, "name": device.name, "roomId": device.roomID ?? NSNull(), "types": types,
                    "connectivity": "\(device.sourceConnectivity.connectivityState)",
                    "locality": "\(device.sourceConnectivity.dataSourceLocality)",
                ] as [String: Any])
            }
            print(lines.joined(separator: "\n"))
        }
    }
}

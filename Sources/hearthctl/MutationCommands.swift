import Foundation
import ArgumentParser
import HearthSDK

struct Rename: AsyncParsableCommand {
    enum Kind: String, ExpressibleByArgument, CaseIterable { case device, room, structure }
    static let configuration = CommandConfiguration(
        abstract: "Rename a device, room or structure (names are cut at 60 characters).")
    @OptionGroup var hub: HubOptions
    @Argument(help: "device, room or structure.") var kind: Kind
    @Argument(help: "Its id or current name.") var target: String
    @Argument(help: "The new name.") var name: String

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let stored: String
            switch kind {
            case .device: stored = try await Resolve.device(target, in: try await home.devices().list()).setName(name).name
            case .room: stored = try await Resolve.room(target, in: try await home.rooms().list()).setName(name).name
            case .structure: stored = try await Resolve.structure(target, in: try await home.structures().list()).setName(name).name
            }
            if hub.json { return try Output.json(["name": stored]) }
            print(stored)
        }
    }
}

struct RoomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "room", abstract: "Create or delete rooms.", subcommands: [Create.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a room; prints its id.")
        @OptionGroup var hub: HubOptions
        @Option(help: "The structure (id or name); needed when there are several.") var structure: String?
        @Argument var name: String

        func run() async throws {
            try await Hearthctl.run(hub) { home in
                let room = try await Resolve.structure(structure, in: try await home.structures().list()).createRoom(name: name)
                if hub.json { return try Output.json(["id": room.id, "name": room.name, "structureId": room.structureID]) }
                print(room.id)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a room; its devices stay, unassigned.")
        @OptionGroup var hub: HubOptions
        @Argument(help: "Room id or name.") var room: String

        func run() async throws {
            try await Hearthctl.run(hub) { home in
                let room = try Resolve.room(room, in: try await home.rooms().list())
                let structure = try Resolve.structure(room.structureID, in: try await home.structures().list())
                try await structure.deleteRoom(room)
            }
        }
    }
}

struct Move: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Move devices into a room.")
    @OptionGroup var hub: HubOptions
    @Option(help: "The room (id or name).") var to: String
    @Argument(help: "Device ids or names.") var devices: [String]

    func validate() throws {
        guard !devices.isEmpty else { throw ValidationError("name at least one device") }
    }

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let all = try await home.devices().list()
            let ids = try devices.map { try Resolve.device($0, in: all).id }
            let room = try Resolve.room(to, in: try await home.rooms().list())
            let structure = try Resolve.structure(room.structureID, in: try await home.structures().list())
            try await structure.move(devices: ids, to: room.id)
        }
    }
}

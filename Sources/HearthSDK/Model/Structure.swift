public import HearthModel
import HearthProto
import SwiftProtobuf

/// A home (or another building) as the cache last saw it: a value, unchanged by later updates.
public struct Structure: Sendable, Hashable, Identifiable {
    /// The hub's id.
    public let id: String
    /// The user's name for it.
    public let name: String
    let home: Home

    init(_ proto: Hearth_V1_Structure, home: Home) {
        id = proto.id
        name = proto.name
        self.home = home
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id && lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(name)
    }

    /// Creates a room here. Names longer than 60 code points are cut to 60.
    /// - Returns: the room as stored.
    /// - Throws: ``HomeError`` (`permissionDenied` for a viewer).
    public func createRoom(name: String) async throws -> Room {
        let room = try await home.call(HomeMethods.createRoom, .with { $0.structureID = id; $0.name = name })
        return Room(room, home: home)
    }

    /// Deletes a room; its devices stay in the structure, unassigned.
    public func deleteRoom(_ room: Room) async throws { try await deleteRoom(id: room.id) }

    /// Deletes a room by id; its devices stay in the structure, unassigned.
    public func deleteRoom(id roomID: String) async throws {
        _ = try await home.call(HomeMethods.deleteRoom, .with { $0.roomID = roomID })
    }

    /// Moves a device into a room of this structure.
    public func move(device: HomeDevice, to room: Room) async throws {
        try await move(devices: [device.id], to: room.id)
    }

    /// Moves devices into a room of this structure.
    public func move(devices: [HomeDevice], to room: Room) async throws {
        try await move(devices: devices.map(\.id), to: room.id)
    }

    /// Moves a device, by id, into a room of this structure, by id.
    public func move(device deviceID: String, to roomID: String) async throws {
        try await move(devices: [deviceID], to: roomID)
    }

    /// Moves devices, by id, into a room of this structure, by id.
    public func move(devices deviceIDs: [String], to roomID: String) async throws {
        _ = try await home.call(HomeMethods.moveDevices, .with {
            $0.deviceIds = deviceIDs
            $0.roomID = roomID
            $0.structureID = id
        })
    }

    /// Renames the structure. Names longer than 60 code points are cut to 60.
    /// - Returns: the structure as stored (this value is unchanged).
    public func setName(_ name: String) async throws -> Structure {
        Structure(try await home.call(HomeMethods.renameStructure, .with { $0.structureID = id; $0.name = name }), home: home)
    }
}

/// A room as the cache last saw it.
public struct Room: Sendable, Hashable, Identifiable {
    /// The hub's id.
    public let id: String
    /// The user's name for it.
    public let name: String
    /// The structure it belongs to.
    public let structureID: String
    let home: Home

    init(_ proto: Hearth_V1_Room, home: Home) {
        id = proto.id
        name = proto.name
        structureID = proto.structureID
        self.home = home
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.name == rhs.name && lhs.structureID == rhs.structureID
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(name)
    }

    /// Renames the room. Names longer than 60 code points are cut to 60.
    /// - Returns: the room as stored (this value is unchanged).
    public func setName(_ name: String) async throws -> Room {
        Room(try await home.call(HomeMethods.renameRoom, .with { $0.roomID = id; $0.name = name }), home: home)
    }
}

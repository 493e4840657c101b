import Foundation
import HearthModel

/// Client mutations of metadata. Each returns the stored object once it is committed and published.
extension HubEngine {
    public func createStructure(name: String, by access: UserAccess) async throws -> StructureRecord {
        guard access.role == .admin else {
            throw HubError(.permissionDenied, "only an admin may create a structure")
        }
        let structure = StructureRecord(id: Self.newID("s"), name: Names.cut(name), revision: upcomingRevision)
        stage(structure)
        try record([.structure(structure)], path: .metadata)
        try await awaitCommit()
        return structure
    }

    public func renameStructure(id: String, name: String, by access: UserAccess) async throws -> StructureRecord {
        var structure = try visibleStructure(id, access)
        guard access.role == .admin else {
            throw HubError(.permissionDenied, "only an admin may rename a structure")
        }
        structure.name = Names.cut(name)
        structure.revision = upcomingRevision
        stage(structure)
        try record([.structure(structure)], path: .metadata)
        try await awaitCommit()
        return structure
    }

    public func createRoom(in structureID: String, name: String, by access: UserAccess) async throws -> RoomRecord {
        _ = try visibleStructure(structureID, access)
        try requireWriter(access)
        let room = RoomRecord(
            id: Self.newID("r"), structureID: structureID, name: Names.cut(name), revision: upcomingRevision)
        stage(room)
        try record([.room(room)], path: .metadata)
        try await awaitCommit()
        return room
    }

    public func renameRoom(id: String, name: String, by access: UserAccess) async throws -> RoomRecord {
        var room = try visibleRoom(id, access)
        try requireWriter(access)
        room.name = Names.cut(name)
        room.revision = upcomingRevision
        stage(room)
        try record([.room(room)], path: .metadata)
        try await awaitCommit()
        return room
    }

    /// Deletes a room; its devices stay in the structure, unassigned.
    public func deleteRoom(id: String, by access: UserAccess) async throws -> (revision: UInt64, [DeviceRecord]) {
        let room = try visibleRoom(id, access)
        try requireWriter(access)
        let revision = upcomingRevision
        var changes: [GraphChange] = [.roomRemoved(id: id, structureID: room.structureID)]
        var unassigned: [DeviceRecord] = []
        for var device in graph.devices(inRoom: id) {
            device.roomID = nil
            device.revision = revision
            stage(device)
            unassigned.append(device)
            changes.append(.device(device, previousStructureID: device.structureID))
        }
        stageRoomRemoval(id)
        try record(changes, path: .metadata)
        try await awaitCommit()
        return (revision, unassigned)
    }

    public func renameDevice(id: String, name: String, by access: UserAccess) async throws -> DeviceRecord {
        var device = try visibleDevice(id, access)
        try requireWriter(access)
        device.name = Names.cut(name)
        device.revision = upcomingRevision
        stage(device)
        try record([.device(device, previousStructureID: device.structureID)], path: .metadata)
        try await awaitCommit()
        return device
    }

    /// Moves devices into a room, or (room nil) out of their rooms into `structureID`.
    ///
    /// All or nothing: every id is checked before anything changes.
    public func moveDevices(ids: [String], toRoom roomID: String?, structureID: String?, by access: UserAccess)
        async throws -> [DeviceRecord]
    {
        guard !ids.isEmpty else { throw HubError(.invalidArgument, "no device ids given") }
        let target: String
        if let roomID {
            let room = try visibleRoom(roomID, access)
            if let structureID, structureID != room.structureID {
                throw HubError(
                    .failedPrecondition, "room \(roomID) is in structure \(room.structureID), not \(structureID)")
            }
            target = room.structureID
        } else {
            guard let structureID else {
                throw HubError(.invalidArgument, "give a room id, or a structure id to take devices out of rooms")
            }
            target = try visibleStructure(structureID, access).id
        }
        let devices = try ids.map { try visibleDevice($0, access) }
        try requireWriter(access)
        let revision = upcomingRevision
        var changes: [GraphChange] = []
        var moved: [DeviceRecord] = []
        for var device in devices {
            let previous = device.structureID
            device.structureID = target
            device.roomID = roomID
            device.revision = revision
            stage(device)
            moved.append(device)
            changes.append(.device(device, previousStructureID: previous))
        }
        try record(changes, path: .metadata)
        try await awaitCommit()
        return moved
    }

    // MARK: - Lookups that do not leak what the caller may not see

    func visibleStructure(_ id: String, _ access: UserAccess) throws(HubError) -> StructureRecord {
        guard let structure = graph.structures[id], access.canSee(structure: id) else {
            throw HubError(.notFound, "no structure '\(id)'")
        }
        return structure
    }

    func visibleRoom(_ id: String, _ access: UserAccess) throws(HubError) -> RoomRecord {
        guard let room = graph.rooms[id], access.canSee(structure: room.structureID) else {
            throw HubError(.notFound, "no room '\(id)'")
        }
        return room
    }

    func visibleDevice(_ id: String, _ access: UserAccess) throws(HubError) -> DeviceRecord {
        guard let device = graph.devices[id], access.canSee(structure: device.structureID) else {
            throw HubError(.notFound, "no device '\(id)'")
        }
        return device
    }

    func requireWriter(_ access: UserAccess) throws(HubError) {
        guard access.canWrite else {
            throw HubError(.permissionDenied, "user '\(access.user)' may only read")
        }
    }

    static func newID(_ prefix: String) -> String {
        "\(prefix)-" + UUID().uuidString.lowercased().prefix(13).replacingOccurrences(of: "-", with: "")
    }
}

import HearthModel
import HearthProto
import SwiftProtobuf

/// What a watcher's filter and rights look at to decide whether it may see a change.
struct ChangeRoute: Sendable, Hashable {
    /// The structure the object is in after the change (nil: unassigned device).
    var structureID: String?
    /// For device changes that move it between structures: where it was.
    var previousStructureID: String?
    var deviceID: String?
    var deviceTypes: [UInt32] = []
    var traitID: UInt32?
    /// Structure and room changes pass device-id, device-type and trait filters.
    var isContext = false
}

/// Which changes supersede each other when a slow watcher's backlog is coalesced.
enum CoalesceKey: Hashable, Sendable {
    case structure(String)
    case room(String)
    case device(String)
    case trait(device: String, endpoint: UInt32, trait: UInt32)
}

/// One published change: encoded once, as a `WatchResponse.changes` field, and shared by every watcher.
struct LogEntry: Sendable {
    var revision: UInt64
    /// Nil for events, which are never coalesced.
    var key: CoalesceKey?
    var route: ChangeRoute
    /// `WatchResponse` field 1 (tag, length, `Change` bytes): responses are concatenations of these.
    var framed: [UInt8]
    /// The change as stored (the `Change` message bytes).
    var change: [UInt8]
    /// For a device that left a structure: the `device_removed` change its old structure's watchers get.
    var framedMovedOut: [UInt8]?

    init(revision: UInt64, change: Hearth_V1_Change, key: CoalesceKey?, route: ChangeRoute) throws {
        self.revision = revision
        self.key = key
        self.route = route
        self.change = try change.serializedBytes()
        self.framed = Self.frame(self.change)
        if let previous = route.previousStructureID, previous != route.structureID, let deviceID = route.deviceID {
            var removed = Hearth_V1_Change()
            removed.revision = revision
            removed.deviceRemoved = deviceID
            self.framedMovedOut = Self.frame(try removed.serializedBytes())
        }
    }

    /// Rebuilds an entry from its stored `Change` bytes, routing it with the graph as loaded.
    init(stored bytes: [UInt8], previousStructureID: String?, graph: HomeGraph) throws {
        let change = try Hearth_V1_Change(serializedBytes: bytes)
        var (key, route) = Self.routing(of: change, graph: graph)
        route.previousStructureID = previousStructureID
        try self.init(revision: change.revision, change: change, key: key, route: route)
    }

    /// Key and route of a decoded change (used after a restart).
    static func routing(of change: Hearth_V1_Change, graph: HomeGraph) -> (CoalesceKey?, ChangeRoute) {
        switch change.kind {
        case .structure(let s):
            return (.structure(s.id), ChangeRoute(structureID: s.id, isContext: true))
        case .structureRemoved(let id):
            return (.structure(id), ChangeRoute(structureID: id, isContext: true))
        case .room(let r):
            return (.room(r.id), ChangeRoute(structureID: r.structureID, isContext: true))
        case .roomRemoved(let r):
            return (.room(r.roomID), ChangeRoute(structureID: r.structureID, isContext: true))
        case .device(let d):
            return (
                .device(d.id),
                ChangeRoute(
                    structureID: d.structureID.isEmpty ? nil : d.structureID, deviceID: d.id,
                    deviceTypes: d.types.map(\.deviceTypeID))
            )
        case .deviceRemoved(let id):
            let device = graph.devices[id]
            return (
                .device(id),
                ChangeRoute(structureID: device?.structureID, deviceID: id, deviceTypes: device?.deviceTypeIDs ?? [])
            )
        case .trait(let t):
            let device = graph.devices[t.deviceID]
            return (
                .trait(device: t.deviceID, endpoint: t.endpoint, trait: t.state.traitID),
                ChangeRoute(
                    structureID: device?.structureID, deviceID: t.deviceID, deviceTypes: device?.deviceTypeIDs ?? [],
                    traitID: t.state.traitID)
            )
        case .event(let e):
            let device = graph.devices[e.deviceID]
            return (
                nil,
                ChangeRoute(
                    structureID: device?.structureID, deviceID: e.deviceID, deviceTypes: device?.deviceTypeIDs ?? [],
                    traitID: e.traitID)
            )
        case nil:
            return (nil, ChangeRoute(isContext: true))
        }
    }

    /// Field 1, length-delimited.
    static func frame(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x0A]
        out.reserveCapacity(message.count + 6)
        WatchResponseBytes.appendVarint(UInt64(message.count), to: &out)
        out.append(contentsOf: message)
        return out
    }
}

extension GraphChange {
    /// The entry watchers receive for this change at `revision`.
    func logEntry(revision: UInt64) throws -> LogEntry {
        var change = Hearth_V1_Change()
        change.revision = revision
        switch self {
        case .structure(let s):
            change.structure = s.proto
            return try LogEntry(
                revision: revision, change: change, key: .structure(s.id),
                route: ChangeRoute(structureID: s.id, isContext: true))
        case .room(let r):
            change.room = r.proto
            return try LogEntry(
                revision: revision, change: change, key: .room(r.id),
                route: ChangeRoute(structureID: r.structureID, isContext: true))
        case .roomRemoved(let id, let structureID):
            var removed = Hearth_V1_RoomRemoved()
            removed.roomID = id
            removed.structureID = structureID
            change.roomRemoved = removed
            return try LogEntry(
                revision: revision, change: change, key: .room(id),
                route: ChangeRoute(structureID: structureID, isContext: true))
        case .device(let d, let previous):
            change.device = d.proto
            return try LogEntry(
                revision: revision, change: change, key: .device(d.id),
                route: ChangeRoute(
                    structureID: d.structureID, previousStructureID: previous, deviceID: d.id,
                    deviceTypes: d.deviceTypeIDs))
        case .deviceRemoved(let d):
            change.deviceRemoved = d.id
            return try LogEntry(
                revision: revision, change: change, key: .device(d.id),
                route: ChangeRoute(structureID: d.structureID, deviceID: d.id, deviceTypes: d.deviceTypeIDs))
        case .trait(let d, let endpoint, let trait):
            var t = Hearth_V1_TraitChange()
            t.deviceID = d.id
            t.endpoint = endpoint
            t.state = trait.proto
            change.trait = t
            return try LogEntry(
                revision: revision, change: change,
                key: .trait(device: d.id, endpoint: endpoint, trait: trait.traitID.rawValue),
                route: ChangeRoute(
                    structureID: d.structureID, deviceID: d.id, deviceTypes: d.deviceTypeIDs,
                    traitID: trait.traitID.rawValue))
        case .event(let d, var event):
            event.revision = revision
            change.event = event
            return try LogEntry(
                revision: revision, change: change, key: nil,
                route: ChangeRoute(
                    structureID: d.structureID, deviceID: d.id, deviceTypes: d.deviceTypeIDs, traitID: event.traitID))
        }
    }
}

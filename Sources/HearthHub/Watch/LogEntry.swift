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
///
/// A class of constants: every watcher that reads a batch of the log copies references, one retain per
/// entry, instead of the entry's arrays and strings.
final class LogEntry: Sendable {
    let revision: UInt64
    /// Nil for events, which are never coalesced.
    let key: CoalesceKey?
    let route: ChangeRoute
    /// `WatchResponse` field 1 (tag, length, `Change` bytes): responses are concatenations of these.
    let framed: [UInt8]
    /// Where the `Change` bytes start in ``framed``.
    private let headerLength: Int
    /// For a device that left a structure: the `device_removed` change its old structure's watchers get.
    let framedMovedOut: [UInt8]?

    /// What the entry holds in memory, roughly: its encoded bytes and a fixed share for the object, its route
    /// and its key (about 200 bytes with the ids' strings); what ``ChangeLog``'s byte capacity counts.
    var retainedBytes: Int { framed.count + (framedMovedOut?.count ?? 0) + 200 }

    /// The change as stored (the `Change` message bytes).
    var change: ArraySlice<UInt8> { framed[headerLength...] }

    /// An entry for `change`, routed with `device` (the device it concerns, as of the change; nil for
    /// structures and rooms, or when unknown).
    convenience init(_ change: Hearth_V1_Change, previousStructureID: String?, device: DeviceRecord?) throws {
        try self.init(
            change: change, bytes: try change.serializedBytes(), previousStructureID: previousStructureID, device: device)
    }

    /// Rebuilds an entry from its stored `Change` bytes (after a restart), routing it with the graph as loaded.
    /// (The store decodes a cold start's log on every core, so the change arrives decoded with its bytes.)
    convenience init(stored bytes: [UInt8], decoded change: Hearth_V1_Change, previousStructureID: String?, graph: HomeGraph)
        throws
    {
        let deviceID: String? =
            switch change.kind {
            case .deviceRemoved(let id): id
            case .trait(let t): t.deviceID
            case .event(let e): e.deviceID
            default: nil
            }
        try self.init(
            change: change, bytes: bytes, previousStructureID: previousStructureID,
            device: deviceID.flatMap { graph.devices[$0] })
    }

    private init(revision: UInt64, key: CoalesceKey?, route: ChangeRoute, framed: [UInt8], headerLength: Int) {
        self.revision = revision
        self.key = key
        self.route = route
        self.framed = framed
        self.headerLength = headerLength
        framedMovedOut = nil
    }

    /// The entry of one trait's new state, the hot path's change (one per report item): the trait state is
    /// encoded straight from the graph's record (`TraitRecord.appendState`), inside the two messages around it
    /// (`TraitChange`, `Change`) and the response field, in one buffer. Encoding the whole `Change` instead made
    /// swift-protobuf size every nested message once more per level above it, and copied the bytes into the
    /// frame. `LogEntryTests` checks the bytes equal swift-protobuf's encoding of the same `Change`.
    static func trait(revision: UInt64, device: DeviceRecord, endpoint: UInt32, state: TraitRecord) -> LogEntry {
        let stateSize = state.stateSize()
        // TraitChange: device_id = 1 (string), endpoint = 2 (uint32), state = 3 (message, always present).
        let traitChangeSize =
            ProtoBytes.stringFieldSize(device.id) + ProtoBytes.varintFieldSize(UInt64(endpoint))
            + ProtoBytes.delimitedFieldSize(stateSize)
        // Change: revision = 1 (uint64), trait = 8 (message).
        let changeSize = ProtoBytes.varintFieldSize(revision) + ProtoBytes.delimitedFieldSize(traitChangeSize)
        var framed: [UInt8] = []
        framed.reserveCapacity(ProtoBytes.delimitedFieldSize(changeSize))
        ProtoBytes.appendDelimitedHeader(1, length: changeSize, to: &framed)  // WatchResponse.changes = 1
        let headerLength = framed.count
        ProtoBytes.appendVarintField(1, revision, to: &framed)
        ProtoBytes.appendDelimitedHeader(8, length: traitChangeSize, to: &framed)
        ProtoBytes.appendStringField(1, device.id, to: &framed)
        ProtoBytes.appendVarintField(2, UInt64(endpoint), to: &framed)
        ProtoBytes.appendDelimitedHeader(3, length: stateSize, to: &framed)
        state.appendState(to: &framed)
        let traitID = state.traitID.rawValue
        return LogEntry(
            revision: revision, key: .trait(device: device.id, endpoint: endpoint, trait: traitID),
            route: ChangeRoute(
                structureID: device.structureID, deviceID: device.id, deviceTypes: device.deviceTypeIDs,
                traitID: traitID),
            framed: framed, headerLength: headerLength)
    }

    private init(change: Hearth_V1_Change, bytes: [UInt8], previousStructureID: String?, device: DeviceRecord?) throws {
        revision = change.revision
        var (key, route) = Self.routing(of: change, device: device)
        route.previousStructureID = previousStructureID
        self.key = key
        self.route = route
        let framed = Self.frame(bytes)
        headerLength = framed.count - bytes.count
        self.framed = framed
        if let previousStructureID, previousStructureID != route.structureID, let deviceID = route.deviceID {
            var removed = Hearth_V1_Change()
            removed.revision = change.revision
            removed.deviceRemoved = deviceID
            framedMovedOut = Self.frame(try removed.serializedBytes())
        } else {
            framedMovedOut = nil
        }
    }

    /// Key and route of a change; `device` supplies what the change itself does not carry (the structure and
    /// types of the device a trait change, event or removal concerns).
    private static func routing(of change: Hearth_V1_Change, device: DeviceRecord?) -> (CoalesceKey?, ChangeRoute) {
        let deviceRoute = { (id: String, trait: UInt32?) in
            ChangeRoute(structureID: device?.structureID, deviceID: id, deviceTypes: device?.deviceTypeIDs ?? [], traitID: trait)
        }
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
            let route = ChangeRoute(
                structureID: d.structureID.isEmpty ? nil : d.structureID, deviceID: d.id,
                deviceTypes: d.types.map(\.deviceTypeID))
            return (.device(d.id), route)
        case .deviceRemoved(let id):
            return (.device(id), deviceRoute(id, nil))
        case .trait(let t):
            return (.trait(device: t.deviceID, endpoint: t.endpoint, trait: t.state.traitID), deviceRoute(t.deviceID, t.state.traitID))
        case .event(let e):
            return (nil, deviceRoute(e.deviceID, e.traitID))
        case nil:
            return (nil, ChangeRoute(isContext: true))
        }
    }

    /// Field 1, length-delimited.
    static func frame(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(ProtoBytes.delimitedFieldSize(message.count))
        ProtoBytes.appendDelimitedHeader(1, length: message.count, to: &out)
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
            return try LogEntry(change, previousStructureID: nil, device: nil)
        case .room(let r):
            change.room = r.proto
            return try LogEntry(change, previousStructureID: nil, device: nil)
        case .roomRemoved(let id, let structureID):
            change.roomRemoved.roomID = id
            change.roomRemoved.structureID = structureID
            return try LogEntry(change, previousStructureID: nil, device: nil)
        case .device(let d, let previous):
            change.device = d.proto
            return try LogEntry(change, previousStructureID: previous, device: d)
        case .deviceRemoved(let d):
            change.deviceRemoved = d.id
            return try LogEntry(change, previousStructureID: nil, device: d)
        case .trait(let d, let endpoint, let trait):
            return LogEntry.trait(revision: revision, device: d, endpoint: endpoint, state: trait)
        case .event(let d, var event):
            event.revision = revision
            change.event = event
            return try LogEntry(change, previousStructureID: nil, device: d)
        }
    }
}

import HashTreeCollections
import HearthModel
import HearthProto
import Synchronization

/// The hub's home as one watch stream has shown it so far: an immutable value, replaced whole on each update,
/// so a subscriber can hold one while the next is built.
struct HomeSnapshot: Sendable {
    var structures: [String: Hearth_V1_Structure] = [:]
    var rooms: [String: Hearth_V1_Room] = [:]
    /// A persistent hash tree: each update copies only the path to the changed device, not the whole home
    /// (a `Dictionary` shared with a subscriber's older snapshot was copied whole on every update). Its
    /// values are immutable boxes, so a node copied on that path retains one reference per device instead
    /// of copying each message's fields (a `Hearth_V1_Device` copy is about seven retains).
    var devices: TreeDictionary<String, CachedDevice> = [:]
    /// The newest revision applied, and the hub epoch it belongs to.
    var revision: UInt64 = 0
    var epoch = ""
    /// Whether the first snapshot has been completed (the hub's synced mark).
    var synced = false
    /// Counts updates; a subscriber that saw update n and now sees n + k missed none when k is 1.
    var sequence: UInt64 = 0
    /// What the latest update changed (ids of added, modified and removed objects).
    var delta = Delta()

    /// Ids changed by one update.
    struct Delta: Sendable, Equatable {
        var structures: Set<String> = []
        var rooms: Set<String> = []
        var devices: Set<String> = []
        var events: [Hearth_V1_Event] = []

        var isEmpty: Bool { structures.isEmpty && rooms.isEmpty && devices.isEmpty && events.isEmpty }

        mutating func formUnion(_ other: Delta) {
            structures.formUnion(other.structures)
            rooms.formUnion(other.rooms)
            devices.formUnion(other.devices)
            events += other.events
        }
    }

    /// Applies one change; records in `delta` what it touched (only what really differs).
    mutating func apply(_ change: WatchBatch.Change, revision: UInt64) {
        switch change {
        case .device(let d):
            // A new device is a change without comparing (a snapshot of 100k devices made 100k copies here).
            if let old = devices.updateValue(CachedDevice(d), forKey: d.id) {
                if !old.value.sameIgnoringRevisions(d) { delta.devices.insert(d.id) }
            } else {
                delta.devices.insert(d.id)
            }
        case .trait(let deviceID, let endpoint, let state):
            applyTrait(deviceID: deviceID, endpoint: endpoint, state: state, revision: revision)
        case .other(let other):
            apply(other)
        }
    }

    /// Applies a watch response's changes and takes its revision.
    mutating func apply(_ response: WatchBatch) {
        for (revision, change) in response.changes { apply(change, revision: revision) }
        revision = max(revision, response.revision)
    }

    /// Applies one change as swift-protobuf decoded it.
    mutating func apply(_ change: Hearth_V1_Change) {
        switch change.kind {
        case .structure(let s):
            let old = structures.updateValue(s, forKey: s.id)
            if old == nil || old?.name != s.name { delta.structures.insert(s.id) }
        case .structureRemoved(let id):
            if structures.removeValue(forKey: id) != nil { delta.structures.insert(id) }
        case .room(let r):
            let old = rooms.updateValue(r, forKey: r.id)
            if old == nil || old?.name != r.name || old?.structureID != r.structureID { delta.rooms.insert(r.id) }
        case .roomRemoved(let removed):
            if rooms.removeValue(forKey: removed.roomID) != nil { delta.rooms.insert(removed.roomID) }
        case .device(let d):
            apply(.device(CompactDevice(d)), revision: change.revision)
        case .deviceRemoved(let id):
            if devices.removeValue(forKey: id) != nil { delta.devices.insert(id) }
        case .trait(let t):
            applyTrait(deviceID: t.deviceID, endpoint: t.endpoint, state: CompactTrait(t.state), revision: change.revision)
        case .event(let event):
            delta.events.append(event)
        case nil:
            return
        }
    }

    /// One trait's new state (the whole trait, as the hub sends it, or some of its attributes).
    private mutating func applyTrait(deviceID: String, endpoint: UInt32, state: CompactTrait, revision: UInt64) {
        guard var device = devices[deviceID]?.value,
            let type = device.types.firstIndex(where: { $0.endpoint == endpoint }),
            let trait = device.types[type].traits.firstIndex(where: { $0.traitID == state.traitID })
        else { return }
        let old = device.types[type].traits[trait]
        var merged = old
        merged.merge(attributesOf: state)
        merged.confirmed = state.confirmed
        merged.revision = state.revision
        let placement = merged.connectivity != state.connectivity || merged.locality != state.locality
        merged.connectivity = state.connectivity
        merged.locality = state.locality
        // A new revision is a change (checked first: comparing every attribute only to find the revision
        // differs cost a deep compare per report); the same revision again is one only if it differs.
        guard merged.revision != old.revision || merged != old else { return }
        device.types[type].traits[trait] = merged
        device.revision = max(device.revision, revision, state.revision)
        if placement { device.refreshConnectivity() }  // the aggregate can only move when a trait's did
        devices[device.id] = CachedDevice(device)
        delta.devices.insert(device.id)
    }

    /// The change set that turns `self` into `other`, object by object (for a re-list: subscribers must see
    /// only what really changed while the client was away).
    func differences(to other: HomeSnapshot) -> Delta {
        var delta = Delta()
        for id in Set(structures.keys).union(other.structures.keys) where structures[id]?.name != other.structures[id]?.name {
            delta.structures.insert(id)
        }
        for id in Set(rooms.keys).union(other.rooms.keys) {
            let (a, b) = (rooms[id], other.rooms[id])
            if a?.name != b?.name || a?.structureID != b?.structureID || (a == nil) != (b == nil) { delta.rooms.insert(id) }
        }
        for id in Set(devices.keys).union(other.devices.keys) {
            switch (devices[id], other.devices[id]) {
            case (let a?, let b?): if !a.value.sameIgnoringRevisions(b.value) { delta.devices.insert(id) }
            case (nil, nil): break
            default: delta.devices.insert(id)
            }
        }
        return delta
    }
}

/// One version of a cached device: its compact form, and its public value, built the first time a view
/// asks for it and shared by every view of this version after that.
final class CachedDevice: Sendable {
    let value: CompactDevice
    private let converted = Mutex<HomeDevice?>(nil)

    init(_ value: CompactDevice) { self.value = value }

    /// The public value, bound to `home`.
    func device(home: Home) -> HomeDevice {
        if let device = converted.withLock({ $0 }) { return device }
        let device = HomeDevice(value, home: home)
        return converted.withLock { existing in
            if let existing { return existing }  // another view converted it meanwhile: share that one
            existing = device
            return device
        }
    }
}

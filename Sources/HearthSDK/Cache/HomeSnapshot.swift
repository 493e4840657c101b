import HearthModel
import HearthProto
import Synchronization

/// The hub's home as one watch stream has shown it so far: a value replaced on each update, so a subscriber
/// can hold one while the next is built.
///
/// Structures, rooms and the set of devices are immutable in it. A device's content is not: each device is a
/// ``CachedDevice`` entry, shared by every snapshot that holds the device, that a change to the device
/// updates in place. An older snapshot therefore shows a device as it is now, never older than when the
/// snapshot was published (possibly ahead of the snapshot's revision, in the middle of an update being
/// applied); renderings use each entry's ``CachedDevice/Read/version`` and ``CachedDevice/Read/sequence`` so
/// that no value is delivered twice (see ``DeviceRenderMemory``).
///
/// A new version of the device per change (a new box, copies of its type and trait arrays, a path of the
/// hash tree copied, and all of it freed with the previous snapshot) was half of a client's CPU per change.
struct HomeSnapshot: Sendable {
    var structures: [String: Hearth_V1_Structure] = [:]
    var rooms: [String: Hearth_V1_Room] = [:]
    /// The entries by id: a hash table shared between snapshots, with an overlay for devices added or
    /// removed since it was built (``DeviceTable``).
    var devices = DeviceTable()
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
            guard synced else {
                insertWhileBuilding(d)
                return
            }
            // A new device is a change without comparing (a snapshot of 100k devices made 100k copies here).
            if let entry = devices[d.id] {
                if entry.replace(with: d, sequence: sequence + 1) { delta.devices.insert(d.id) }
            } else {
                devices.insert(CachedDevice(d, sequence: sequence + 1), for: d.id)
                delta.devices.insert(d.id)
            }
        case .trait(let deviceID, let endpoint, let state):
            applyTrait(deviceID: deviceID, endpoint: endpoint, state: state, revision: revision)
        case .other(let other):
            apply(other)
        }
    }

    /// A device of a snapshot being built (``Home``'s first list or a re-list): the snapshot is not published
    /// until it is synced, so its table is not shared and is updated in place, in one pass for a new device
    /// (a lookup, then an insert, were a tenth of a client joining a 100,000-device home), and what it
    /// changed is not recorded (it is not an update anyone sees; the update is the difference to the old
    /// cache, made at the synced mark).
    private mutating func insertWhileBuilding(_ device: CompactDevice) {
        let sequence = sequence + 1
        let (entry, isNew) = devices.entry(for: device.id) { CachedDevice(device, sequence: sequence) }
        if !isNew { _ = entry.replace(with: device, sequence: sequence) }
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

    /// One trait's new state (the whole trait, as the hub sends it, or some of its attributes), written into
    /// the device's entry in place.
    private mutating func applyTrait(deviceID: String, endpoint: UInt32, state: CompactTrait, revision: UInt64) {
        guard let entry = devices[deviceID] else { return }
        let changed = entry.update(sequence: sequence + 1) { device in
            guard case .changed(let placement) = device.types.update(endpoint: endpoint, with: state) else { return false }
            device.revision = max(device.revision, revision, state.revision)
            if placement { device.refreshConnectivity() }  // the aggregate can only move when a trait's did
            return true
        }
        if changed { delta.devices.insert(deviceID) }
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

/// One cached device: its compact form, updated in place by each change, and its public value, built the
/// first time a view asks for it after a change and shared by every view until the next.
final class CachedDevice: Sendable {
    private struct State {
        var value: CompactDevice
        /// Counts the changes made to the entry.
        var version: UInt64 = 0
        /// The snapshot sequence whose update made the last change (it may not be published yet).
        var sequence: UInt64
        var converted: HomeDevice?
    }

    /// The entry as one view read it.
    struct Read {
        var device: HomeDevice
        var version: UInt64
        var sequence: UInt64
    }

    private let state: Mutex<State>

    /// A new entry, made by the update that will be published as `sequence`.
    init(_ value: CompactDevice, sequence: UInt64 = 0) { state = Mutex(State(value: value, sequence: sequence)) }

    /// The compact form now.
    var value: CompactDevice { state.withLock { $0.value } }

    /// How many changes the entry has had, and the sequence of the update that made the last one.
    var stamp: (version: UInt64, sequence: UInt64) { state.withLock { ($0.version, $0.sequence) } }

    /// Changes the value in place when `body` says it changed it, as made by the update that will be
    /// published as `sequence`; returns whether it did.
    func update(sequence: UInt64, _ body: (inout CompactDevice) -> Bool) -> Bool {
        state.withLock { s in
            // Released first (not kept aside): the public value shares the arrays, which would otherwise be
            // copied to be written. A change that turns out to change nothing costs a conversion later.
            s.converted = nil
            guard body(&s.value) else { return false }
            s.version &+= 1
            s.sequence = sequence
            return true
        }
    }

    /// Replaces the value with `device` (a new version even when only revisions differ, so that no view
    /// keeps a public value converted from the old one); returns whether anything a user sees changed.
    func replace(with device: CompactDevice, sequence: UInt64) -> Bool {
        state.withLock { s in
            let changed = !s.value.sameIgnoringRevisions(device)
            s.converted = nil
            s.value = device
            s.version &+= 1
            s.sequence = sequence
            return changed
        }
    }

    /// The public value, bound to `home`.
    func device(home: Home) -> HomeDevice { read(home: home).device }

    /// The public value with the version it shows: converted under the lock, at most once per change (the
    /// conversion shares the value's strings and buffer, so it costs a small allocation; copying the value
    /// out to convert it unlocked cost a retain and a release of each of them, a tenth of a `list()`).
    func read(home: Home) -> Read {
        state.withLock { s in
            let device = s.converted ?? HomeDevice(s.value, home: home)
            s.converted = device
            return Read(device: device, version: s.version, sequence: s.sequence)
        }
    }
}

import DequeModule
import HearthModel
import HearthProto
import HearthWire
import OrderedCollections
import Synchronization

/// Where a trait lives: device, endpoint, trait.
struct TraitKey: Hashable, Sendable {
    var device: String
    var endpoint: UInt32
    var trait: TraitID
}

/// The driver's devices with their current values, and what waits to be sent to the hub.
///
/// Reports are coalesced per trait until the session's writer takes them: under load a burst of reports
/// for one trait leaves one report with the newest values, and each message carries many traits. Events
/// are never coalesced; they are kept in order (bounded, oldest dropped with a count). Command results are
/// kept for the session that asked.
final class DeviceStore: Sendable {
    struct PendingReport: Sendable {
        var attributes: [AttributeID: Value] = [:]
        var connectivity: ConnectivityState?
    }

    struct State: Sendable {
        var devices: OrderedDictionary<String, DeviceDescription> = [:]
        var vendorSchemas: [String] = []
        /// Counts sessions; results carry the number of the session that asked.
        var session = 0
        var connected = false
        var newDevices: OrderedSet<String> = []
        var removals: [String] = []
        var reports: OrderedDictionary<TraitKey, PendingReport> = [:]
        var events: Deque<Hearth_V1_Event> = []
        var results: [Hearth_V1_CommandResult] = []
        var droppedEvents = 0
        /// Counted since the store was made (``Driver/statistics``).
        var totals = Driver.Statistics()
    }

    let state: Mutex<State>
    let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// Rung when what is queued must not wait for the writer's batch window (a command result, or the
    /// driver stopping): it ends the window at once.
    let windowAlarm = SleepAlarm()
    /// Events kept while the writer cannot send (no connection); beyond it the oldest are dropped.
    let eventLimit: Int

    init(vendorSchemas: [String], eventLimit: Int = 4096) {
        state = Mutex(State(vendorSchemas: vendorSchemas))
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.eventLimit = eventLimit
    }

    /// Counts ``ring()`` calls (for tests: what wakes the writer how often).
    let rings = Atomic<Int>(0)

    /// Tells the session's writer there is something to send.
    func ring() {
        rings.add(1, ordering: .relaxed)
        wake.yield()
    }

    /// Adds (or replaces) a device; it is announced now if connected, else on connection. Returns where it
    /// is kept (a hint for ``update(_:hint:trait:endpoint:connectivity:ringing:_:)``).
    @discardableResult
    func add(_ device: DeviceDescription) -> Int {
        let slot = state.withLock { s in
            let slot = s.devices.updateValue(device, forKey: device.id, insertingAt: s.devices.count).index
            if s.connected { s.newDevices.append(device.id) }
            return slot
        }
        ring()
        return slot
    }

    func remove(_ ids: [String]) {
        state.withLock { s in
            for id in ids where s.devices.removeValue(forKey: id) != nil {
                s.newDevices.remove(id)
                s.reports.removeAll { $0.key.device == id }
                if s.connected { s.removals.append(id) }
            }
        }
        ring()
    }

    /// What the store has counted since it was made.
    var totals: Driver.Statistics { state.withLock { $0.totals } }

    /// Where a device is kept now, if it is known.
    func slot(of id: String) -> Int? { state.withLock { $0.devices.index(forKey: id) } }

    /// What waits to be sent, as the writer needs to know it.
    enum Waiting: Equatable {
        /// Nothing: a ring that woke the writer was answered by an earlier drain (a driver reporting two
        /// traits rings twice, and the first drain takes both).
        case nothing
        /// Reports, events, announcements or removals: they may gather for the batch window.
        case gathering
        /// A command result among them: it goes out without waiting for the window.
        case urgent
    }

    /// What waits to be sent now, in one look.
    var waiting: Waiting {
        state.withLock { s in
            if !s.results.isEmpty { return .urgent }
            let any = !s.newDevices.isEmpty || !s.removals.isEmpty || !s.reports.isEmpty || !s.events.isEmpty
                || s.droppedEvents > 0
            return any ? .gathering : .nothing
        }
    }

    /// Where a device's trait is in `s.devices` (device, endpoint and trait indices), found as
    /// ``locate(_:endpoint:in:)`` finds it. `hint` is where the device was when its handle was made: when the
    /// device is still there, comparing its id costs less than hashing it (a short id compares as two words).
    /// - Throws: ``DriverError`` for an unknown device, or a device without that trait.
    private static func position(of device: String, hint: Int = -1, _ trait: TraitID, endpoint: UInt32?, in s: State)
        throws(DriverError) -> (d: Int, e: Int, t: Int)
    {
        let d: Int
        if hint >= 0, hint < s.devices.count, s.devices.keys[hint] == device {
            d = hint
        } else if let found = s.devices.index(forKey: device) {
            d = found
        } else {
            throw .unknownDevice(device)
        }
        guard let (e, t) = locate(trait, endpoint: endpoint, in: s.devices.values[d]) else {
            throw .unknownTrait(device: device, trait: trait, endpoint: endpoint)
        }
        return (d, e, t)
    }

    /// Finds the trait: on `endpoint`, or on the first endpoint that has it.
    static func locate(_ trait: TraitID, endpoint: UInt32?, in device: DeviceDescription) -> (Int, Int)? {
        for (e, described) in device.endpoints.enumerated() where endpoint == nil || described.endpoint == endpoint {
            if let t = described.traits.firstIndex(where: { $0.traitID == trait }) { return (e, t) }
        }
        return nil
    }

    /// Changes a trait's values; what changed is queued for the hub. Returns the trait's endpoint.
    /// `ringing: false` leaves the writer asleep (``DriverDevice/reportTogether(_:)`` rings once at the end).
    @discardableResult
    func update(
        _ device: String, hint: Int = -1, trait: TraitID, endpoint: UInt32?, connectivity: ConnectivityState? = nil,
        ringing: Bool = true, _ body: (inout [AttributeID: Value]) -> Void
    ) throws(DriverError) -> UInt32 {
        let endpointNumber = try state.withLock { s throws(DriverError) -> UInt32 in
            // Changed in place: a device copied out of the dictionary and written back made every report
            // copy the device's endpoints, traits and attributes (a fifth of a driver's CPU at 20,000/s).
            let (d, e, t) = try Self.position(of: device, hint: hint, trait, endpoint: endpoint, in: s)
            let number = s.devices.values[d].endpoints[e].endpoint
            // The body changes a copy (the stored values are still referenced by it until written back);
            // what differs is then written to the pending report entry by entry, and the copy replaces the
            // stored values. No dictionary of changes is built and nothing is merged twice.
            var values = s.devices.values[d].endpoints[e].traits[t].attributes
            body(&values)
            let before = s.devices.values[d].endpoints[e].traits[t]
            let connectivityChanged = connectivity != nil && connectivity != before.connectivity
            let queue = Self.queuesReports(of: device, in: s)
            let key = TraitKey(device: device, endpoint: number, trait: trait)
            var changed = false
            var added = 0
            var slot: Int?  // The pending report's index, found (or made) at the first change.
            for (id, value) in values {
                let old = before.attributes[id]
                if old == nil { added += 1 }
                guard old != value else { continue }
                changed = true
                guard queue else { continue }
                if slot == nil { slot = Self.pendingSlot(key, in: &s.reports) }
                Self.queue(value, for: id, at: slot!, in: &s)
            }
            if changed {
                // A body that removed attributes leaves them as they were (reports only set values).
                if values.count != before.attributes.count + added {
                    for (id, value) in before.attributes where values[id] == nil { values[id] = value }
                }
                s.devices.values[d].endpoints[e].traits[t].attributes = values
            }
            if let connectivity { s.devices.values[d].endpoints[e].traits[t].connectivity = connectivity }
            if connectivityChanged, queue { s.reports[key, default: PendingReport()].connectivity = connectivity }
            return number
        }
        if ringing { ring() }
        return endpointNumber
    }

    /// Sets some of a trait's values (a raw report): each value that differs is written in place and queued
    /// for the hub. ``update(_:hint:trait:endpoint:connectivity:ringing:_:)`` with a merging body did the same through a
    /// copy of the trait's whole dictionary, merged and then compared entry by entry.
    func set(
        _ device: String, hint: Int = -1, trait: TraitID, endpoint: UInt32?, ringing: Bool = true,
        _ values: [AttributeID: Value]
    ) throws(DriverError) {
        try state.withLock { s throws(DriverError) in
            let (d, e, t) = try Self.position(of: device, hint: hint, trait, endpoint: endpoint, in: s)
            let queue = Self.queuesReports(of: device, in: s)
            let key = TraitKey(device: device, endpoint: s.devices.values[d].endpoints[e].endpoint, trait: trait)
            var slot: Int?  // The pending report's index, found (or made) at the first change.
            for (id, value) in values {
                let old = s.devices.values[d].endpoints[e].traits[t].attributes.updateValue(value, forKey: id)
                guard old != value, queue else { continue }
                if slot == nil { slot = Self.pendingSlot(key, in: &s.reports) }
                Self.queue(value, for: id, at: slot!, in: &s)
            }
        }
        if ringing { ring() }
    }

    /// Whether a change of `device` is queued for the hub now: not while disconnected, nor for a device whose
    /// announcement (which carries its values) has yet to leave.
    private static func queuesReports(of device: String, in s: State) -> Bool {
        s.connected && (s.newDevices.isEmpty || !s.newDevices.contains(device))
    }

    /// Writes a changed value into the pending report at `slot`, counting it, and counting the value it
    /// replaces there (one the hub will never see) as superseded.
    private static func queue(_ value: Value, for id: AttributeID, at slot: Int, in s: inout State) {
        s.totals.valuesQueued += 1
        if s.reports.values[slot].attributes.updateValue(value, forKey: id) != nil { s.totals.valuesSuperseded += 1 }
    }

    /// The index of `key`'s pending report, appended empty when there is none.
    private static func pendingSlot(_ key: TraitKey, in reports: inout OrderedDictionary<TraitKey, PendingReport>) -> Int {
        if let index = reports.index(forKey: key) { return index }
        reports[key] = PendingReport()
        return reports.count - 1
    }

    /// The endpoint number of a device's trait (on `endpoint`, or the first that has it).
    func endpoint(of device: String, trait: TraitID, endpoint: UInt32?) throws(DriverError) -> UInt32 {
        try state.withLock { s throws(DriverError) in
            let (d, e, _) = try Self.position(of: device, trait, endpoint: endpoint, in: s)
            return s.devices.values[d].endpoints[e].endpoint
        }
    }

    /// A trait's connectivity as the driver last set it (``DriverDevice/setConnectivity(_:trait:endpoint:)``).
    func connectivity(_ device: String, trait: TraitID, endpoint: UInt32?) throws(DriverError) -> ConnectivityState {
        try state.withLock { s throws(DriverError) in
            let (d, e, t) = try Self.position(of: device, trait, endpoint: endpoint, in: s)
            return s.devices.values[d].endpoints[e].traits[t].connectivity
        }
    }

    /// A trait's current values.
    func attributes(_ device: String, trait: TraitID, endpoint: UInt32?) throws(DriverError) -> [AttributeID: Value] {
        try state.withLock { s throws(DriverError) in
            let (d, e, t) = try Self.position(of: device, trait, endpoint: endpoint, in: s)
            return s.devices.values[d].endpoints[e].traits[t].attributes
        }
    }

    /// Queues an event (never coalesced).
    func emit(_ event: Hearth_V1_Event) {
        state.withLock { s in
            s.events.append(event)
            if s.events.count > eventLimit {
                s.events.removeFirst()
                s.droppedEvents += 1
                s.totals.eventsDropped += 1
            }
        }
        ring()
    }

    /// Queues a command result for the session that asked; dropped when that session has ended.
    func complete(_ result: Hearth_V1_CommandResult, session: Int) {
        let kept = state.withLock { s in
            guard s.session == session else { return false }
            s.results.append(result)
            return true
        }
        if kept {
            windowAlarm.ring()
            ring()
        }
    }
}

public import HearthModel
import HearthProto
public import HearthTypes
import Foundation

/// A device of a running driver: report its state, emit its events, read what it last reported.
///
/// ```swift
/// let lamp = driver.add(description)
/// try lamp.report(Matter.OnOffTrait.self) { $0.onOff = true }
/// try lamp.emit(Matter.BooleanStateTrait.StateChangeEvent(stateValue: false))
/// let level = try lamp.attributes(Matter.LevelControlTrait.self).currentLevel
/// ```
///
/// Reports are queued and sent in batches: a burst of reports for one trait reaches the hub as one report
/// with the newest values. `endpoint` picks the device-type instance; without it the first endpoint that
/// has the trait is used (give it for a device with two OnOff traits).
public struct DriverDevice: Sendable, Hashable {
    /// The driver's id for the device.
    public let id: String
    let store: DeviceStore
    /// Where the store kept the device when this handle was made (-1: not known). Only a hint: once a device
    /// kept before it is removed (or the device itself is removed and added again) it misses, and the id is
    /// looked up by its hash as before. Adding devices never moves one.
    let slot: Int

    init(id: String, store: DeviceStore, slot: Int? = nil) {
        self.id = id
        self.store = store
        self.slot = slot ?? -1
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id && lhs.store === rhs.store }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Sets attribute values of a trait and reports those that changed.
    /// - Throws: ``DriverError`` when the device or trait is unknown.
    public func report<T: Trait>(
        _ trait: T.Type, endpoint: UInt32? = nil, _ body: (inout T.Attributes) -> Void
    ) throws(DriverError) {
        try report(trait, endpoint: endpoint, ringing: true, body)
    }

    /// ``report(_:endpoint:_:)``, waking the writer or not (``reportTogether(_:)`` wakes it once, at its end).
    func report<T: Trait>(
        _ trait: T.Type, endpoint: UInt32?, ringing: Bool, _ body: (inout T.Attributes) -> Void
    ) throws(DriverError) {
        try store.update(id, hint: slot, trait: T.traitID, endpoint: endpoint, ringing: ringing) { values in
            var attributes = T.Attributes(values: values)
            // The typed view holds the values' one reference while the body runs, so its change copies the
            // stored dictionary once, not twice.
            values = [:]
            body(&attributes)
            values = attributes.values
        }
    }

    /// Sets raw attribute values of a trait by id (vendor traits without generated code).
    public func report(trait: TraitID, endpoint: UInt32? = nil, _ values: [AttributeID: Value]) throws(DriverError) {
        try store.set(id, hint: slot, trait: trait, endpoint: endpoint, values)
    }

    /// Reports several of the device's traits as one change.
    ///
    /// The driver's writer is woken once, after `body`: the traits leave in one message, which the hub
    /// applies as one revision. Reported one by one, from a thread other than the driver's event loop, the
    /// first report wakes the writer at once and usually leaves alone; the others then wait for the next
    /// ``Driver/Configuration/batchWindow`` (a second write, a timer's wake-up, and watchers seeing the
    /// change in two steps).
    ///
    /// ```swift
    /// try lamp.reportTogether { lamp in
    ///     try lamp.report(Matter.OnOffTrait.self) { $0.onOff = true }
    ///     try lamp.report(Matter.LevelControlTrait.self) { $0.currentLevel = 200 }
    /// }
    /// ```
    ///
    /// - Parameter body: reports through the ``TraitReports`` it is given (only while it runs).
    /// - Throws: what `body` throws (a ``DriverError`` when the body says `throws(DriverError)`); what it
    ///   reported before that is sent.
    public func reportTogether<E: Error>(_ body: (TraitReports) throws(E) -> Void) throws(E) {
        defer { store.ring() }
        try body(TraitReports(device: self))
    }

    /// The trait's current values, as last reported.
    public func attributes<T: Trait>(_ trait: T.Type, endpoint: UInt32? = nil) throws(DriverError) -> T.Attributes {
        T.Attributes(values: try store.attributes(id, trait: T.traitID, endpoint: endpoint))
    }

    /// Says whether a trait can be reached: `.offline` when, say, the cloud link of a remote trait is cut;
    /// `.online` when it is back. The hub aggregates traits into the device's connectivity.
    public func setConnectivity<T: Trait>(_ state: ConnectivityState, of trait: T.Type, endpoint: UInt32? = nil)
        throws(DriverError)
    {
        try setConnectivity(state, trait: T.traitID, endpoint: endpoint)
    }

    /// ``setConnectivity(_:of:endpoint:)`` by trait id.
    public func setConnectivity(_ state: ConnectivityState, trait: TraitID, endpoint: UInt32? = nil) throws(DriverError) {
        try store.update(id, hint: slot, trait: trait, endpoint: endpoint, connectivity: state) { _ in }
    }

    /// Emits an event of one of the device's traits; events are delivered in order and never coalesced.
    public func emit<E: TraitEvent>(_ event: E, endpoint: UInt32? = nil) throws(DriverError) {
        try emit(trait: E.OwnerTrait.traitID, event: E.id, fields: event.value.structFields ?? [:], endpoint: endpoint)
    }

    /// Emits an event by ids (vendor traits without generated code).
    public func emit(trait: TraitID, event: EventID, fields: [FieldID: Value], endpoint: UInt32? = nil)
        throws(DriverError)
    {
        let resolved = try store.endpoint(of: id, trait: trait, endpoint: endpoint)
        var message = Hearth_V1_Event()
        message.deviceID = id
        message.endpoint = resolved
        message.traitID = trait.rawValue
        message.eventID = event.rawValue
        message.fields = Value.protoStruct(fields)
        message.timestampMs = Int64(Date().timeIntervalSince1970 * 1000)
        store.emit(message)
    }
}

/// What ``DriverDevice/reportTogether(_:)`` gives its body: reports of one device that wake the driver's
/// writer only once the body has returned. Not `Sendable`, and meant for the body alone: reports made
/// through it later wake no one, and wait for the driver's next write.
public struct TraitReports {
    let device: DriverDevice

    /// Sets attribute values of a trait and queues those that changed (see ``DriverDevice/report(_:endpoint:_:)``).
    /// - Throws: ``DriverError`` when the device or trait is unknown.
    public func report<T: Trait>(
        _ trait: T.Type, endpoint: UInt32? = nil, _ body: (inout T.Attributes) -> Void
    ) throws(DriverError) {
        try device.report(trait, endpoint: endpoint, ringing: false, body)
    }

    /// Sets raw attribute values of a trait by id (see ``DriverDevice/report(trait:endpoint:_:)``).
    /// - Throws: ``DriverError`` when the device or trait is unknown.
    public func report(trait: TraitID, endpoint: UInt32? = nil, _ values: [AttributeID: Value]) throws(DriverError) {
        try device.store.set(device.id, hint: device.slot, trait: trait, endpoint: endpoint, ringing: false, values)
    }
}

import HearthModel
import HearthProto
import DequeModule
import OrderedCollections
import SwiftProtobuf
import Synchronization

extension DeviceStore {
    /// Starts a session: every device is announced whole with its current values (so reports queued before
    /// are dropped), then traits known to be unreachable are reported as such. Returns the session number
    /// and the messages to send first.
    func beginSession(devicesPerAnnounce: Int) -> (session: Int, messages: [Hearth_V1_DriverMessage]) {
        state.withLock { s in
            s.session += 1
            s.connected = true
            s.newDevices = []
            s.removals = []
            s.reports = [:]
            s.results = []
            let messages = Self.announcements(
                Array(s.devices.values), schemas: s.vendorSchemas, per: devicesPerAnnounce,
                evenIfEmpty: !s.vendorSchemas.isEmpty)
            for device in s.devices.values {
                for endpoint in device.endpoints {
                    for trait in endpoint.traits where trait.connectivity != .online {
                        let key = TraitKey(device: device.id, endpoint: endpoint.endpoint, trait: trait.traitID)
                        s.reports[key] = PendingReport(connectivity: trait.connectivity)
                    }
                }
            }
            return (s.session, messages)
        }
    }

    /// Ends the session: results for it can no longer be delivered.
    func endSession() {
        state.withLock { s in
            s.connected = false
            s.results = []
        }
    }

    /// What waits to be sent, taken from the state in one short lock.
    private struct Outbox {
        var newDevices: [DeviceDescription]
        var removals: [String]
        var reports: OrderedDictionary<TraitKey, PendingReport>
        var events: Deque<Hearth_V1_Event>
        var results: [Hearth_V1_CommandResult]
        var droppedEvents: Int
        var totals: Driver.Statistics
    }

    /// Takes everything waiting, as encoded messages in the order they should be written: announcements of
    /// devices added meanwhile, removals, reports (state before the results that caused it), events,
    /// results. Also returns how many events were dropped since the last drain because too many waited, and
    /// the store's totals as of the drain.
    ///
    /// The lock is held only to take the queues; encoding happens after, so reporters never wait for it.
    /// Reports are encoded straight from the store (``ReportEncoder``).
    /// - Throws: an error of swift-protobuf's if a message cannot be encoded.
    func drain(maxTraitsPerReport: Int, devicesPerAnnounce: Int) throws
        -> (messages: [[UInt8]], droppedEvents: Int, totals: Driver.Statistics)
    {
        let outbox = state.withLock { s -> Outbox in
            defer {
                s.newDevices = []
                s.removals = []
                // Sized for a batch like this one: refilling from empty re-hashed the table as it grew.
                s.reports = OrderedDictionary(minimumCapacity: s.reports.count)
                s.events = []
                s.results = []
                s.droppedEvents = 0
            }
            return Outbox(
                newDevices: s.newDevices.compactMap { s.devices[$0] }, removals: s.removals, reports: s.reports,
                events: s.events, results: s.results, droppedEvents: s.droppedEvents, totals: s.totals)
        }
        var out: [[UInt8]] = []
        for message in Self.announcements(outbox.newDevices, schemas: [], per: devicesPerAnnounce) {
            out.append(try message.serializedBytes())
        }
        if !outbox.removals.isEmpty {
            var message = Hearth_V1_DriverMessage()
            message.remove.deviceIds = outbox.removals
            out.append(try message.serializedBytes())
        }
        for chunk in chunks(outbox.reports.elements, of: maxTraitsPerReport) {
            out.append(ReportEncoder.driverMessage(chunk))
        }
        for chunk in chunks(outbox.events, of: maxTraitsPerReport) {
            var message = Hearth_V1_DriverMessage()
            message.events.events = Array(chunk)
            out.append(try message.serializedBytes())
        }
        for result in outbox.results {
            var message = Hearth_V1_DriverMessage()
            message.result = result
            out.append(try message.serializedBytes())
        }
        return (out, outbox.droppedEvents, outbox.totals)
    }

    private static func announcements(
        _ devices: [DeviceDescription], schemas: [String], per: Int, evenIfEmpty: Bool = false
    ) -> [Hearth_V1_DriverMessage] {
        var out: [Hearth_V1_DriverMessage] = []
        for (index, chunk) in chunks(devices, of: per).enumerated() {
            var message = Hearth_V1_DriverMessage()
            message.announce.devices = chunk.map(\.announcement)
            if index == 0 { message.announce.vendorTraitSchemasJson = schemas }
            out.append(message)
        }
        if out.isEmpty, evenIfEmpty {
            var message = Hearth_V1_DriverMessage()
            message.announce.vendorTraitSchemasJson = schemas
            out.append(message)
        }
        return out
    }
}

/// `items` in consecutive slices of at most `size`.
func chunks<C: RandomAccessCollection>(_ items: C, of size: Int) -> [C.SubSequence] where C.Index == Int {
    let size = max(size, 1)
    return stride(from: items.startIndex, to: items.endIndex, by: size).map {
        items[$0..<min($0 + size, items.endIndex)]
    }
}

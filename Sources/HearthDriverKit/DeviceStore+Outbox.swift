import HearthModel
import HearthProto
import DequeModule
import OrderedCollections
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

    /// Takes everything waiting, as messages in the order they should be written: announcements of devices
    /// added meanwhile, removals, reports (state before the results that caused it), events, results.
    /// Also returns how many events were dropped since the last drain because too many waited.
    func drain(maxTraitsPerReport: Int, devicesPerAnnounce: Int) -> (messages: [Hearth_V1_DriverMessage], droppedEvents: Int) {
        state.withLock { s -> ([Hearth_V1_DriverMessage], Int) in
            var out = Self.announcements(
                s.newDevices.compactMap { s.devices[$0] }, schemas: [], per: devicesPerAnnounce)
            s.newDevices = []
            if !s.removals.isEmpty {
                var message = Hearth_V1_DriverMessage()
                message.remove.deviceIds = s.removals
                out.append(message)
                s.removals = []
            }
            for chunk in chunks(Array(s.reports), of: maxTraitsPerReport) {
                var message = Hearth_V1_DriverMessage()
                message.report.traits = chunk.map { key, pending in
                    var report = Hearth_V1_TraitReport()
                    report.deviceID = key.device
                    report.endpoint = key.endpoint
                    report.traitID = key.trait.rawValue
                    report.attributes = TraitDescription.proto(pending.attributes)
                    if let connectivity = pending.connectivity { report.connectivity = connectivity.proto }
                    return report
                }
                out.append(message)
            }
            s.reports = [:]
            for chunk in chunks(Array(s.events), of: maxTraitsPerReport) {
                var message = Hearth_V1_DriverMessage()
                message.events.events = Array(chunk)
                out.append(message)
            }
            s.events = []
            for result in s.results {
                var message = Hearth_V1_DriverMessage()
                message.result = result
                out.append(message)
            }
            s.results = []
            defer { s.droppedEvents = 0 }
            return (out, s.droppedEvents)
        }
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
func chunks<T>(_ items: [T], of size: Int) -> [ArraySlice<T>] {
    stride(from: 0, to: items.count, by: max(size, 1)).map { items[$0..<min($0 + max(size, 1), items.count)] }
}

import HearthWire
import Foundation
public import HearthModel
public import HearthProto

/// What drivers do to the graph: announce, report, raise events, remove; and what their connection does.
extension HubEngine {
    /// Registers vendor schemas, then adds or updates the announced devices. User metadata (name, structure,
    /// room) of known devices is kept; devices left out are left alone.
    public func announce(driver: String, _ announce: Hearth_V1_Announce) async throws -> Hearth_V1_AnnounceResult {
        var result = Hearth_V1_AnnounceResult()
        for json in announce.vendorTraitSchemasJson {
            do {
                let schema = try configuration.inputLimits.decodeSchema(json: json)
                var catalog = validator.catalog
                try catalog.registerVendorTrait(schema)
                validator.catalog = catalog
            } catch let error as CatalogError {
                result.rejected.append(Self.rejection("vendor trait schema", .invalidArgument, error.message))
            } catch let error as InputLimitError {
                result.rejected.append(Self.rejection("vendor trait schema", .invalidArgument, error.message))
            } catch {
                result.rejected.append(Self.rejection("vendor trait schema", .invalidArgument, "not a trait schema: \(error)"))
            }
        }
        let revision = upcomingRevision
        var changes: [GraphChange] = []
        let online = connectedDrivers.contains(driver)
        for announced in announce.devices {
            do throws(HubError) {
                changes += try announceOne(announced, driver: driver, online: online, revision: revision)
                result.accepted.append(announced.id)
            } catch {
                result.rejected.append(Self.rejection(announced.id, error.code, error.message))
            }
        }
        if !changes.isEmpty {
            try record(changes, path: .metadata)
            try await awaitCommit()
        }
        return result
    }

    /// Checks one announced device and puts it into the graph; the changes are none when nothing changed,
    /// and start with a new room when a new device's suggested room did not exist yet.
    private func announceOne(
        _ announced: Hearth_V1_DeviceAnnouncement, driver: String, online: Bool, revision: UInt64
    ) throws(HubError) -> [GraphChange] {
        let types = try checkedTypes(announced, online: online, revision: revision)
        let id = DeviceRecord.globalID(driver: driver, local: announced.id)
        let existing = graph.devices[id]
        let suggested = announced.suggestedName.isEmpty ? announced.id : announced.suggestedName
        var changes: [GraphChange] = []
        var roomID = existing?.roomID
        let structureID = existing?.structureID ?? defaultStructureID
        if existing == nil, let structureID, !announced.suggestedRoom.isEmpty {
            roomID = suggestedRoom(announced.suggestedRoom, in: structureID, revision: revision, &changes)
        }
        let device = DeviceRecord(
            id: id, driverID: driver, localID: announced.id, structureID: structureID, roomID: roomID,
            name: existing?.name ?? Names.cut(suggested), isMatterDevice: announced.isMatterDevice, types: types,
            revision: revision)
        if let existing, existing.withoutRevisions == device.withoutRevisions { return [] }
        stage(device)
        return changes + [.device(device, previousStructureID: existing?.structureID)]
    }

    /// The id of the room named `name` in the structure (compared without case), created when missing.
    private func suggestedRoom(_ name: String, in structureID: String, revision: UInt64, _ changes: inout [GraphChange])
        -> String
    {
        let name = Names.cut(name)
        if let room = graph.rooms.values.first(where: {
            $0.structureID == structureID && $0.name.caseInsensitiveCompare(name) == .orderedSame
        }) {
            return room.id
        }
        let room = RoomRecord(id: Self.newID("r"), structureID: structureID, name: name, revision: revision)
        stage(room)
        changes.append(.room(room))
        return room.id
    }

    /// Every driver the graph or the sessions know, with whether it is connected and how many devices it has.
    public func driverSummaries() -> [String: (connected: Bool, devices: Int)] {
        var summaries: [String: (connected: Bool, devices: Int)] = [:]
        for (driver, ids) in graph.devicesByDriver { summaries[driver, default: (false, 0)].devices = ids.count }
        for driver in connectedDrivers { summaries[driver, default: (false, 0)].connected = true }
        return summaries
    }

    /// Merges attribute reports into trait state; returns what was refused (the rest is applied). Waits for
    /// the commit when too many changes are pending (see ``Configuration/maxPendingChanges``).
    public func report(driver: String, _ report: Hearth_V1_Report) async throws -> [Hearth_V1_Rejection] {
        try await self.report(driver: driver, traits: report.traits.map(ReportedTrait.init(proto:)))
    }

    /// ``report(driver:_:)`` for traits already read (a driver's stream reads its reports straight into
    /// them, ``InboundDriverMessage``).
    func report(driver: String, traits: [ReportedTrait]) async throws -> [Hearth_V1_Rejection] {
        let revision = upcomingRevision
        var rejections: [Hearth_V1_Rejection] = []
        var changes: [GraphChange] = []
        for item in traits {
            // Formed only for a refusal: a valid report allocates no text.
            func subject() -> String { "\(item.deviceID)/\(item.endpoint)/\(item.traitID.rawValue)" }
            let id = DeviceRecord.globalID(driver: driver, local: item.deviceID)
            let connectivity =
                item.connectivity == .unknown ? ConnectivityState.online : ConnectivityState(proto: item.connectivity)
            let attributes = item.attributes
            // The trait is changed in place in the graph. Nothing may still hold the device or the trait when
            // it is (hence this scope): a copy alive then would make the change copy the device's types and
            // the trait's attributes.
            let t: Int
            let i: Int
            do {
                guard let device = graph.devices[id] else {
                    rejections.append(Self.rejection(subject(), .notFound, "no device '\(item.deviceID)' of driver '\(driver)'"))
                    continue
                }
                guard let type = device.typeIndex(endpoint: item.endpoint),
                    let index = device.types[type].traitIndex(item.traitID)
                else {
                    rejections.append(Self.rejection(subject(), .notFound, "device '\(item.deviceID)' has no trait \(item.traitID) on endpoint \(item.endpoint)"))
                    continue
                }
                do {
                    try validator.validateReport(trait: item.traitID, attributes: attributes)
                } catch {
                    rejections.append(Self.rejection(subject(), .invalidArgument, error.message))
                    continue
                }
                // Only what the report carries can differ: compare those values, not the whole trait.
                let current = device.types[type].traits[index]
                guard current.connectivity != connectivity || !current.confirmed
                    || attributes.contains(where: { current.attributes[$0.key] != $0.value })
                else { continue }
                (t, i) = (type, index)
            }
            let change = graph.modifyDevice(id) { device -> GraphChange in
                device.types[t].traits[i].apply(attributes, connectivity: connectivity, revision: revision)
                device.revision = revision
                return .trait(device, endpoint: item.endpoint, device.types[t].traits[i])
            }
            if let change { changes.append(change) }
        }
        if !changes.isEmpty { try record(changes, path: .state) }
        try await throttle()
        return rejections
    }

    /// Publishes events (never coalesced); returns what was refused. Waits like ``report(driver:_:)``.
    public func events(driver: String, _ report: Hearth_V1_EventReport) async throws -> [Hearth_V1_Rejection] {
        var rejections: [Hearth_V1_Rejection] = []
        var changes: [GraphChange] = []
        for var event in report.events {
            let subject = "\(event.deviceID)/\(event.endpoint)/\(event.traitID)"
            let id = DeviceRecord.globalID(driver: driver, local: event.deviceID)
            guard let device = graph.devices[id], let t = device.typeIndex(endpoint: event.endpoint),
                device.types[t].traitIndex(TraitID(event.traitID)) != nil
            else {
                rejections.append(Self.rejection(subject, .notFound, "no trait \(TraitID(event.traitID)) on endpoint \(event.endpoint) of device '\(event.deviceID)'"))
                continue
            }
            do {
                try validator.validateEvent(
                    trait: TraitID(event.traitID), event: EventID(event.eventID),
                    fields: .struct(Value.fields(of: event.fields)))
            } catch {
                rejections.append(Self.rejection(subject, .invalidArgument, error.message))
                continue
            }
            event.deviceID = id
            if event.timestampMs == 0 { event.timestampMs = Int64(Date().timeIntervalSince1970 * 1000) }
            changes.append(.event(device, event))
        }
        if !changes.isEmpty { try record(changes, path: .state) }
        try await throttle()
        return rejections
    }

    /// Removes devices on the driver's explicit word (never because a driver is missing).
    public func removeDevices(driver: String, localIDs: [String]) async throws -> [Hearth_V1_Rejection] {
        var rejections: [Hearth_V1_Rejection] = []
        var changes: [GraphChange] = []
        for local in localIDs {
            let id = DeviceRecord.globalID(driver: driver, local: local)
            guard let device = stageDeviceRemoval(id) else {
                rejections.append(Self.rejection(local, .notFound, "no device '\(local)' of driver '\(driver)'"))
                continue
            }
            changes.append(.deviceRemoved(device))
        }
        if !changes.isEmpty {
            try record(changes, path: .metadata)
            try await awaitCommit()
        }
        return rejections
    }

    /// A driver's session began: its devices' traits come online when it announces or reports.
    public func driverConnected(_ driver: String) -> [String] {
        connectedDrivers.insert(driver)
        return graph.devices(ofDriver: driver).map(\.localID).sorted()
    }

    /// A driver's session ended: all its traits go offline at once (one revision).
    public func driverDisconnected(_ driver: String) async {
        connectedDrivers.remove(driver)
        setConnectivity(ofDriver: driver, to: .offline)
    }

    /// Whether a driver has a session now.
    public func isConnected(_ driver: String) -> Bool { connectedDrivers.contains(driver) }

    func setConnectivity(ofDriver driver: String, to state: ConnectivityState) {
        let revision = upcomingRevision
        var changes: [GraphChange] = []
        for var device in graph.devices(ofDriver: driver).sorted(by: { $0.id < $1.id })
        where device.setAllTraits(connectivity: state, confirmed: nil, revision: revision) {
            graph.put(device)
            changes.append(.device(device, previousStructureID: device.structureID))
        }
        if !changes.isEmpty { _ = try? record(changes, path: .state) }
    }

    var defaultStructureID: String? {
        configuration.initialStructures.first.map(\.id).flatMap { graph.structures[$0] == nil ? nil : $0 }
    }

    /// The announced types, checked against the catalog.
    private func checkedTypes(_ announced: Hearth_V1_DeviceAnnouncement, online: Bool, revision: UInt64) throws(HubError)
        -> [TypeInstanceRecord]
    {
        guard !announced.id.isEmpty, announced.id.utf8.count <= 128, !announced.id.contains("/") else {
            throw HubError(.invalidArgument, "a device id must be 1 to 128 bytes without '/'")
        }
        guard !announced.types.isEmpty else {
            throw HubError(.invalidArgument, "device '\(announced.id)' announces no device type")
        }
        guard Set(announced.types.map(\.endpoint)).count == announced.types.count else {
            throw HubError(.invalidArgument, "device '\(announced.id)' uses an endpoint twice")
        }
        guard announced.types.filter(\.primary).count <= 1 else {
            throw HubError(.invalidArgument, "device '\(announced.id)' has more than one primary type")
        }
        let anyPrimary = announced.types.contains(where: \.primary)
        var types: [TypeInstanceRecord] = []
        for (index, type) in announced.types.enumerated() {
            let typeID = DeviceTypeID(type.deviceTypeID)
            let traitIDs = type.traits.map { TraitID($0.traitID) }
            if let schema = validator.catalog.deviceType(typeID) {
                let missing = schema.requiredTraits.filter { !traitIDs.contains($0) }
                guard missing.isEmpty else {
                    throw HubError(.invalidArgument, "device '\(announced.id)' endpoint \(type.endpoint): \(schema.name) requires traits \(missing.map(\.description).joined(separator: ", "))")
                }
            } else if type.deviceTypeID >> 16 == 0 {
                throw HubError(.invalidArgument, "device '\(announced.id)': unknown device type \(typeID)")
            }
            guard Set(traitIDs).count == traitIDs.count else {
                throw HubError(.invalidArgument, "device '\(announced.id)' endpoint \(type.endpoint) lists a trait twice")
            }
            var traits: [TraitRecord] = []
            for trait in type.traits {
                let attributes = TraitRecord.attributes(trait.attributes)
                do {
                    try validator.validateReport(trait: TraitID(trait.traitID), attributes: attributes)
                } catch {
                    throw HubError(.invalidArgument, "device '\(announced.id)' endpoint \(type.endpoint): \(error.message)")
                }
                traits.append(
                    TraitRecord(
                        traitID: TraitID(trait.traitID), attributes: attributes,
                        connectivity: online ? .online : .unknown, locality: DataSourceLocality(proto: trait.locality),
                        confirmed: online, revision: revision))
            }
            types.append(
                TypeInstanceRecord(
                    endpoint: type.endpoint, deviceTypeID: typeID, primary: type.primary || (!anyPrimary && index == 0),
                    traits: traits.sorted { $0.traitID < $1.traitID }))
        }
        return types.sorted { $0.endpoint < $1.endpoint }
    }

    static func rejection(_ subject: String, _ code: HubError.Code, _ message: String) -> Hearth_V1_Rejection {
        var rejection = Hearth_V1_Rejection()
        rejection.subject = subject
        rejection.code = UInt32(code.status.rawValue)
        rejection.message = message
        return rejection
    }
}

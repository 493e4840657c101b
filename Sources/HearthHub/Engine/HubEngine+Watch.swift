import HearthModel
public import HearthProto

/// Where a watch stream starts.
enum WatchStart: Sendable {
    /// Send this copy of the graph (taken at `revision`) once `revision` is published, then changes after it.
    case snapshot(HomeGraph, revision: UInt64)
    /// Send the changes after this revision.
    case resume(from: UInt64)
    /// Cannot continue from there: the client must watch again from 0.
    case relist(Hearth_V1_Relist)
}

extension HubEngine {
    /// Decides where a watch starts. Taking the snapshot and fixing the revision it continues from is one
    /// step on the engine, so no change can fall between them.
    func startWatch(from revision: UInt64, epoch: String) -> WatchStart {
        if revision == 0 { return .snapshot(graph, revision: graph.revision) }
        var relist = Hearth_V1_Relist()
        relist.epoch = graph.epoch
        relist.oldestResumable = changeLog.oldestResumable
        if epoch != graph.epoch {
            relist.reason = .epochChanged
        } else if revision > changeLog.published {
            relist.reason = .futureRevision
        } else if revision < changeLog.oldestResumable {
            relist.reason = .tooOld
        } else {
            return .resume(from: revision)
        }
        return .relist(relist)
    }
}

/// Which driver runs a command or write, once the caller's rights and the catalog agree.
struct Route: Sendable {
    var driverID: String
    var localID: String
    /// The engine's validator when the command was routed: the driver's answer is checked against it off the
    /// engine, so the answer's way back to the caller does not queue behind the engine's work.
    var validator: Validator

    /// Checks a driver's answer against the command's response schema.
    func validateResponse(_ request: Hearth_V1_SendCommandRequest, _ fields: Hearth_V1_StructValue) throws(HubError) {
        do {
            try validator.validateResponse(
                trait: TraitID(request.traitID), command: CommandID(request.commandID),
                fields: .struct(Value.fields(of: fields)))
        } catch {
            throw HubError(.internal, "the driver answered with a malformed response: \(error.message)")
        }
    }
}

extension HubEngine {
    /// Checks a command against the caller's rights, the device and the catalog.
    ///
    /// - Throws: NOT_FOUND (device, endpoint or trait), PERMISSION_DENIED, INVALID_ARGUMENT, UNAVAILABLE.
    func routeCommand(_ request: Hearth_V1_SendCommandRequest, by access: UserAccess) throws(HubError) -> Route {
        let device = try visibleTrait(request.deviceID, request.endpoint, request.traitID, access)
        try requireWriter(access)
        do {
            try validator.validateCommand(
                trait: TraitID(request.traitID), command: CommandID(request.commandID),
                fields: .struct(Value.fields(of: request.fields)))
        } catch {
            throw HubError(.invalidArgument, error.message)
        }
        return try online(device)
    }

    /// Checks an attribute write like ``routeCommand(_:by:)``; read-only attributes are INVALID_ARGUMENT.
    func routeWrite(_ request: Hearth_V1_WriteAttributesRequest, by access: UserAccess) throws(HubError) -> Route {
        let device = try visibleTrait(request.deviceID, request.endpoint, request.traitID, access)
        try requireWriter(access)
        guard !request.attributes.isEmpty else { throw HubError(.invalidArgument, "no attributes to write") }
        do {
            try validator.validateWrite(
                trait: TraitID(request.traitID), attributes: TraitRecord.attributes(request.attributes))
        } catch {
            throw HubError(.invalidArgument, error.message)
        }
        return try online(device)
    }

    private func visibleTrait(_ deviceID: String, _ endpoint: UInt32, _ traitID: UInt32, _ access: UserAccess)
        throws(HubError) -> DeviceRecord
    {
        let device = try visibleDevice(deviceID, access)
        guard let t = device.typeIndex(endpoint: endpoint) else {
            throw HubError(.notFound, "device '\(deviceID)' has no endpoint \(endpoint)")
        }
        guard device.types[t].traitIndex(TraitID(traitID)) != nil else {
            throw HubError(.notFound, "device '\(deviceID)' has no trait \(TraitID(traitID)) on endpoint \(endpoint)")
        }
        return device
    }

    private func online(_ device: DeviceRecord) throws(HubError) -> Route {
        guard connectedDrivers.contains(device.driverID) else {
            throw HubError(.unavailable, "device '\(device.id)' is offline: driver '\(device.driverID)' is not connected")
        }
        return Route(driverID: device.driverID, localID: device.localID, validator: validator)
    }
}

extension HubEngine {
    /// Runs one watch in process, exactly as the `Watch` call does over the wire: `send` receives each
    /// serialized `hearth.v1.WatchResponse` (snapshot or resume, synced mark, live changes, progress marks).
    ///
    /// Returns when a relist answer has been sent; otherwise runs until the calling task is cancelled or
    /// `send` throws. The hub's `Watch` handler and the engine benchmark both use it.
    public nonisolated func watch(
        _ request: Hearth_V1_WatchRequest, as user: UserAccess,
        send: @escaping @Sendable ([UInt8]) async throws -> Void
    ) async throws {
        try await watch(request, as: user, configuration: WatchStream.Configuration(), send: send)
    }

    nonisolated func watch(
        _ request: Hearth_V1_WatchRequest, as user: UserAccess, configuration: WatchStream.Configuration,
        send: @escaping @Sendable ([UInt8]) async throws -> Void
    ) async throws {
        let maxInterval = Hearth_V1_WatchRequest.maxUpdateIntervalMs
        guard request.updateIntervalMs <= maxInterval else {
            throw HubError(
                .invalidArgument, "update_interval_ms is at most \(maxInterval) (got \(request.updateIntervalMs))")
        }
        let start = await startWatch(from: request.fromRevision, epoch: request.epoch)
        let stream = WatchStream(
            log: changeLog, filter: WatchFilter(request.filter, access: user), epoch: epoch,
            configuration: configuration, metrics: metrics, send: send, snapshotGate: snapshotGate,
            snapshotCache: snapshotCache)
        metrics.watchOpened()
        defer { metrics.watchClosed() }
        let interval: Duration? =
            request.progressIntervalMs > 0 ? .milliseconds(max(Int(request.progressIntervalMs), 50)) : nil
        try await stream.run(
            start: start, progressInterval: interval, updateInterval: .milliseconds(Int(request.updateIntervalMs)))
    }
}

import Foundation
import HearthProto
import HearthWire

/// `ListDrivers` and `RestartDriver`: the drivers as the hub sees them, and restarting a supervised one.
extension HomeServiceHandler {
    func registerDriverMethods(into router: inout ServiceRouter) {
        router.registerUnary(HomeMethods.listDrivers) { _, context in
            _ = try user(context)
            var response = Hearth_V1_ListDriversResponse()
            response.drivers = try await driverStatuses()
            return response
        }
        router.registerUnary(HomeMethods.restartDriver) { request, context in
            try await mapped {
                let user = try user(context)
                guard user.role == .admin else { throw HubError(.permissionDenied, "only an admin may restart drivers") }
                guard let supervisor, supervisor.supervises(request.driverID) else {
                    if !driverIDs.contains(request.driverID), try await engine.driverSummaries()[request.driverID] == nil {
                        throw HubError(.notFound, "no driver '\(request.driverID)'")
                    }
                    throw HubError(
                        .failedPrecondition,
                        "the hub does not supervise driver '\(request.driverID)'; restart it where it runs")
                }
                try await supervisor.restart(request.driverID)
                return try await driverStatuses().first { $0.driverID == request.driverID }!
            }
        }
    }

    /// Every driver with a token, under supervision, connected, or owning devices; sorted by id.
    private func driverStatuses() async throws -> [Hearth_V1_DriverStatus] {
        let summaries = try await engine.driverSummaries()
        let supervised = await supervisor?.statuses() ?? [:]
        let ids = driverIDs.union(summaries.keys).union(supervised.keys)
        return ids.sorted().map { id in
            var status = Hearth_V1_DriverStatus()
            status.driverID = id
            status.connected = summaries[id]?.connected ?? false
            status.devices = UInt32(summaries[id]?.devices ?? 0)
            guard let process = supervised[id] else { return status }
            status.pid = process.pid
            status.restarts = UInt32(process.restarts)
            status.lastExit = process.lastExit
            status.message = process.message
            if let next = process.nextStart { status.nextStartUnixMs = Int64(next.timeIntervalSince1970 * 1000) }
            status.processState =
                switch process.state {
                case .waiting: .starting
                case .running: status.connected ? .running : .starting
                case .backingOff: .backingOff
                case .failed: .failed
                case .stopped: .stopped
                }
            return status
        }
    }
}

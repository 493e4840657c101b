import HearthModel
import HearthProto
import HearthWire
import NIOCore
import SwiftProtobuf

/// Serves `hearth.v1.HomeService`: authenticates each call, hands it to the engine, maps errors to statuses.
struct HomeServiceHandler: WireService {
    /// The engine; calls that arrive while the hub still loads wait for it.
    let loader: EngineLoader
    let metrics: HubMetrics
    let sessions: DriverSessions
    let access: AccessControl
    /// The hub's plugin supervisor, if it has plugins.
    let supervisor: DriverSupervisor?
    /// Driver ids with a token in the config.
    let driverIDs: Set<String>
    let watchConfiguration: WatchStream.Configuration
    /// How long a command may wait for its driver when the caller set no deadline.
    let defaultCommandTimeout: Duration

    /// The engine, once loaded.
    var engine: HubEngine {
        get async throws { try await loader.engine() }
    }

    func register(into router: inout ServiceRouter) {
        router.registerUnary(HomeMethods.getHub) { _, context in
            let user = try user(context)
            let (epoch, revision) = try await engine.info()
            var info = Hearth_V1_HubInfo()
            info.epoch = epoch
            info.revision = revision
            info.user = user.user
            info.admin = user.role == .admin
            info.hubVersion = HubVersion.current
            return info
        }
        router.registerServerStreaming(HomeMethods.watchPreEncoded) { request, writer, context in
            let user = try user(context)
            try await mapped {
                try await engine.watch(request, as: user, configuration: watchConfiguration) { try await writer.write($0) }
            }
        }
        router.registerUnary(HomeMethods.createStructure) { request, context in
            try await mapped { try await engine.createStructure(name: request.name, by: try user(context)).proto }
        }
        router.registerUnary(HomeMethods.renameStructure) { request, context in
            try await mapped {
                try await engine.renameStructure(id: request.structureID, name: request.name, by: try user(context)).proto
            }
        }
        router.registerUnary(HomeMethods.createRoom) { request, context in
            try await mapped {
                try await engine.createRoom(in: request.structureID, name: request.name, by: try user(context)).proto
            }
        }
        router.registerUnary(HomeMethods.renameRoom) { request, context in
            try await mapped { try await engine.renameRoom(id: request.roomID, name: request.name, by: try user(context)).proto }
        }
        router.registerUnary(HomeMethods.deleteRoom) { request, context in
            try await mapped {
                let (revision, devices) = try await engine.deleteRoom(id: request.roomID, by: try user(context))
                var response = Hearth_V1_DeleteRoomResponse()
                response.revision = revision
                response.unassignedDevices = devices.map(\.proto)
                return response
            }
        }
        router.registerUnary(HomeMethods.renameDevice) { request, context in
            try await mapped {
                try await engine.renameDevice(id: request.deviceID, name: request.name, by: try user(context)).proto
            }
        }
        router.registerUnary(HomeMethods.moveDevices) { request, context in
            try await mapped {
                let moved = try await engine.moveDevices(
                    ids: request.deviceIds, toRoom: request.roomID.isEmpty ? nil : request.roomID,
                    structureID: request.structureID.isEmpty ? nil : request.structureID, by: try user(context))
                var response = Hearth_V1_MoveDevicesResponse()
                response.devices = moved.map(\.proto)
                return response
            }
        }
        router.registerUnary(HomeMethods.sendCommand) { request, context in
            try await measured("command") {
                let route = try await engine.routeCommand(request, by: try user(context))
                let result = try await callDriver(route, context) { id, timeoutMs in
                    .with {
                        $0.command = .with {
                            $0.correlationID = id
                            $0.deviceID = route.localID
                            $0.endpoint = request.endpoint
                            $0.traitID = request.traitID
                            $0.commandID = request.commandID
                            $0.fields = request.fields
                            $0.timeoutMs = timeoutMs
                        }
                    }
                }
                try route.validateResponse(request, result.fields)
                return .with { $0.fields = result.fields }
            }
        }
        router.registerUnary(HomeMethods.writeAttributes) { request, context in
            try await measured("write") {
                let route = try await engine.routeWrite(request, by: try user(context))
                _ = try await callDriver(route, context) { id, timeoutMs in
                    .with {
                        $0.write = .with {
                            $0.correlationID = id
                            $0.deviceID = route.localID
                            $0.endpoint = request.endpoint
                            $0.traitID = request.traitID
                            $0.attributes = request.attributes
                            $0.timeoutMs = timeoutMs
                        }
                    }
                }
                return Hearth_V1_WriteAttributesResponse()
            }
        }
        registerDriverMethods(into: &router)
    }

    /// Runs a command or write like ``mapped(_:)`` and records its outcome and duration in the metrics.
    private func measured<T>(_ kind: String, _ body: () async throws -> T) async throws -> T {
        let started = ContinuousClock.now
        do {
            let result = try await mapped(body)
            metrics.recordCall(kind: kind, code: "OK", duration: .now - started)
            return result
        } catch {
            let code = (error as? RPCError)?.code ?? .unknown
            metrics.recordCall(kind: kind, code: "\(code)", duration: .now - started)
            throw error
        }
    }

    /// Sends a request to the route's driver with the caller's remaining time (or the default) and returns
    /// the driver's successful result; a driver's failure becomes the caller's error, code and message kept.
    private func callDriver(
        _ route: Route, _ context: ServerContext, _ build: (_ correlation: UInt64, _ timeoutMs: UInt32) -> Hearth_V1_HubMessage
    ) async throws -> Hearth_V1_CommandResult {
        let timeout = context.deadline.map { max(.zero, $0 - .now) } ?? defaultCommandTimeout
        let timeoutMs = Self.milliseconds(timeout)
        let result = try await sessions.call(driver: route.driverID, timeout: timeout) { build($0, timeoutMs) }
        guard result.errorCode == 0 else {
            throw RPCError(code: Status.Code(rawValue: Int(result.errorCode)), message: result.errorMessage)
        }
        return result
    }

    func user(_ context: ServerContext) throws -> UserAccess {
        try mappedSync {
            switch try access.authenticate(authorization: context.requestMetadata.string(for: "authorization")) {
            case .user(let user): return user
            case .driver: throw HubError(.permissionDenied, "a driver token cannot call the home service")
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> UInt32 {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return UInt32(clamping: max(ms, 0))
    }
}

/// Runs `body`, turning ``HubError`` into the wire's ``RPCError``.
func mapped<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as HubError {
        throw error.rpcError
    }
}

func mappedSync<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as HubError {
        throw error.rpcError
    }
}

/// The hub's version string.
enum HubVersion {
    static let current = "0.1.0"
}

import HearthModel
import HearthProto
import HearthWire
import NIOCore
import SwiftProtobuf

/// Serves `hearth.v1.HomeService`: authenticates each call, hands it to the engine, maps errors to statuses.
struct HomeServiceHandler: WireService {
    let engine: HubEngine
    let sessions: DriverSessions
    let access: AccessControl
    let watchConfiguration: WatchStream.Configuration
    /// How long a command may wait for its driver when the caller set no deadline.
    let defaultCommandTimeout: Duration

    /// The watch method with pre-encoded responses (the client side decodes `WatchResponse`).
    static let rawWatch = MethodDescriptor<Hearth_V1_WatchRequest, [UInt8]>(
        service: HomeMethods.service, method: "Watch", kind: .serverStreaming,
        requestCodec: .protobuf,
        responseCodec: MessageCodec(serialize: { $0 }, deserialize: { Array($0.readableBytesView) }))

    func register(into router: inout ServiceRouter) {
        router.registerUnary(HomeMethods.getHub) { _, context in
            let user = try user(context)
            let (epoch, revision) = await engine.info()
            var info = Hearth_V1_HubInfo()
            info.epoch = epoch
            info.revision = revision
            info.user = user.user
            info.admin = user.role == .admin
            info.hubVersion = HubVersion.current
            return info
        }
        router.registerServerStreaming(Self.rawWatch) { request, writer, context in
            let user = try user(context)
            let start = await engine.startWatch(from: request.fromRevision, epoch: request.epoch)
            let stream = WatchStream(
                log: engine.changeLog, filter: WatchFilter(request.filter, access: user), epoch: engine.epoch,
                configuration: watchConfiguration, send: { try await writer.write($0) })
            let interval: Duration? =
                request.progressIntervalMs > 0 ? .milliseconds(max(Int(request.progressIntervalMs), 50)) : nil
            try await stream.run(start: start, progressInterval: interval)
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
            try await mapped {
                let route = try await engine.routeCommand(request, by: try user(context))
                let result = try await sessions.call(driver: route.driverID, timeout: timeout(context)) { id in
                    var command = Hearth_V1_CommandRequest()
                    command.correlationID = id
                    command.deviceID = route.localID
                    command.endpoint = request.endpoint
                    command.traitID = request.traitID
                    command.commandID = request.commandID
                    command.fields = request.fields
                    command.timeoutMs = Self.milliseconds(timeout(context))
                    var message = Hearth_V1_HubMessage()
                    message.command = command
                    return message
                }
                try Self.check(result)
                try await engine.validateResponse(request, result.fields)
                var response = Hearth_V1_SendCommandResponse()
                response.fields = result.fields
                return response
            }
        }
        router.registerUnary(HomeMethods.writeAttributes) { request, context in
            try await mapped {
                let route = try await engine.routeWrite(request, by: try user(context))
                let result = try await sessions.call(driver: route.driverID, timeout: timeout(context)) { id in
                    var write = Hearth_V1_WriteRequest()
                    write.correlationID = id
                    write.deviceID = route.localID
                    write.endpoint = request.endpoint
                    write.traitID = request.traitID
                    write.attributes = request.attributes
                    write.timeoutMs = Self.milliseconds(timeout(context))
                    var message = Hearth_V1_HubMessage()
                    message.write = write
                    return message
                }
                try Self.check(result)
                return Hearth_V1_WriteAttributesResponse()
            }
        }
    }

    private func user(_ context: ServerContext) throws -> UserAccess {
        try mappedSync {
            switch try access.authenticate(authorization: context.requestMetadata.string(for: "authorization")) {
            case .user(let user): return user
            case .driver: throw HubError(.permissionDenied, "a driver token cannot call the home service")
            }
        }
    }

    /// The caller's remaining time, or the default when it set none.
    private func timeout(_ context: ServerContext) -> Duration {
        guard let deadline = context.deadline else { return defaultCommandTimeout }
        return max(.zero, deadline - .now)
    }

    static func milliseconds(_ duration: Duration) -> UInt32 {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return UInt32(clamping: max(ms, 0))
    }

    /// A driver's failure becomes the caller's error, with the driver's code and message.
    static func check(_ result: Hearth_V1_CommandResult) throws {
        guard result.errorCode != 0 else { return }
        throw RPCError(code: Status.Code(rawValue: Int(result.errorCode)), message: result.errorMessage)
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

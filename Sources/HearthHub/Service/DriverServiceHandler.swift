import HearthProto
import HearthWire
import Logging

/// Serves `hearth.v1.DriverService/Connect`: one bidirectional stream per driver process.
struct DriverServiceHandler: WireService {
    /// The engine; a driver that connects while the hub still loads waits for it.
    let loader: EngineLoader
    let sessions: DriverSessions
    let access: AccessControl
    let logger: Logger

    func register(into router: inout ServiceRouter) {
        router.registerBidirectional(InboundDriverMessage.connect) { requests, writer, context in
            let driver = try mappedSync {
                switch try access.authenticate(authorization: context.requestMetadata.string(for: "authorization")) {
                case .driver(let id): return id
                case .user: throw HubError(.permissionDenied, "a client token cannot connect as a driver")
                }
            }
            var iterator = requests.makeAsyncIterator()
            guard let first = try await iterator.next(), case .other(let opening) = first, case .hello(let hello) = opening.kind
            else {
                throw RPCError(code: .failedPrecondition, message: "the first message of a driver stream must be Hello")
            }
            guard hello.driverID.isEmpty || hello.driverID == driver else {
                throw RPCError(code: .permissionDenied, message: "this token belongs to driver '\(driver)', not '\(hello.driverID)'")
            }
            let engine = try await loader.engine()
            let (serial, outbound) = sessions.open(driver: driver)
            let known = await engine.driverConnected(driver)
            logger.info("hub.driver.connected", metadata: ["driver.id": "\(driver)", "driver.version": "\(hello.driverVersion)"])
            var welcome = Hearth_V1_HubMessage()
            welcome.welcome.driverID = driver
            welcome.welcome.epoch = engine.epoch
            welcome.welcome.knownDeviceIds = known
            do {
                try await writer.write(welcome)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in outbound { try await writer.write(message) }
                    }
                    group.addTask {
                        // The rest of the stream, after Hello (the iterator holds no state of its own).
                        for try await message in requests {
                            try await handle(message, driver: driver, serial: serial, engine: engine)
                        }
                    }
                    // Either side ending (the driver half-closing, or a newer session replacing this one) ends it.
                    try await group.next()
                    group.cancelAll()
                }
                // Say why, so that the older process does not reconnect and take the driver back in a loop.
                guard sessions.isCurrent(driver: driver, serial: serial) else {
                    throw RPCError(code: .aborted, message: "replaced by a newer session of driver '\(driver)'")
                }
            } catch {
                await disconnect(driver, serial: serial, engine: engine)
                throw error
            }
            await disconnect(driver, serial: serial, engine: engine)
        }
    }

    private func disconnect(_ driver: String, serial: Int, engine: HubEngine) async {
        if sessions.close(driver: driver, serial: serial) {
            await engine.driverDisconnected(driver)
            logger.info("hub.driver.disconnected", metadata: ["driver.id": "\(driver)"])
        }
    }

    private func handle(_ inbound: InboundDriverMessage, driver: String, serial: Int, engine: HubEngine) async throws {
        let rejections: [Hearth_V1_Rejection]
        switch inbound {
        case .report(let traits): rejections = try await engine.report(driver: driver, traits: traits)
        case .other(let message): rejections = try await handle(message, driver: driver, serial: serial, engine: engine)
        }
        for rejection in rejections {
            var reply = Hearth_V1_HubMessage()
            reply.rejection = rejection
            sessions.send(driver: driver, serial: serial, reply)
        }
    }

    /// A message other than a report read directly; returns what it refused.
    private func handle(_ message: Hearth_V1_DriverMessage, driver: String, serial: Int, engine: HubEngine) async throws
        -> [Hearth_V1_Rejection]
    {
        var rejections: [Hearth_V1_Rejection] = []
        switch message.kind {
        case .announce(let announce):
            var reply = Hearth_V1_HubMessage()
            reply.announceResult = try await engine.announce(driver: driver, announce)
            sessions.send(driver: driver, serial: serial, reply)
        case .report(let report):
            rejections = try await engine.report(driver: driver, report)
        case .events(let events):
            rejections = try await engine.events(driver: driver, events)
        case .result(let result):
            if !sessions.complete(driver: driver, result) {
                rejections = [
                    HubEngine.rejection(
                        "\(result.correlationID)", .notFound, "no command waits for correlation id \(result.correlationID)")
                ]
            }
        case .remove(let remove):
            rejections = try await engine.removeDevices(driver: driver, localIDs: remove.deviceIds)
        case .hello:
            rejections = [HubEngine.rejection("hello", .failedPrecondition, "Hello is sent once, first")]
        case nil:
            rejections = [HubEngine.rejection("message", .invalidArgument, "empty driver message")]
        }
        return rejections
    }
}

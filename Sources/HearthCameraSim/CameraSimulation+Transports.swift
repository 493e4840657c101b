import HearthDriverKit
import HearthTypes

extension CameraSimulation {
    typealias Transport = Google.PushAvStreamTransportTrait

    /// Handlers of `PushAvStreamTransportTrait`. Every change reports `currentConnections` (under the
    /// camera's lock, so reports keep the order of the changes) and emits the push events it causes.
    func installTransports(_ driver: Driver) {
        driver.onCommand(Transport.FindTransportCommand.self, responding: Transport.FindTransportResponse.self) {
            [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                let found = try withCamera(context.device.id) { camera throws(CameraError) in
                    try camera.transports.find(command.connectionID)
                }
                return Transport.FindTransportResponse(transportConfigurations: found)
            }
        }
        driver.onCommand(Transport.AllocatePushTransportCommand.self, responding: Transport.AllocatePushTransportResponse.self) {
            [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                let connection = try changeTransports(context.device.id) { transports throws(CameraError) in
                    (try transports.allocate(command.transportOptions), [])
                }
                return Transport.AllocatePushTransportResponse(transportConfiguration: connection)
            }
        }
        driver.onCommand(Transport.DeallocatePushTransportCommand.self) { [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try changeTransports(context.device.id) { transports throws(CameraError) in
                    ((), try transports.deallocate(command.connectionID))
                }
            }
        }
        driver.onCommand(Transport.ModifyPushTransportCommand.self) { [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try changeTransports(context.device.id) { transports throws(CameraError) in
                    ((), try transports.modify(command.connectionID, options: command.transportOptions))
                }
            }
        }
        driver.onCommand(Transport.SetTransportStatusCommand.self) { [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try changeTransports(context.device.id) { transports throws(CameraError) in
                    ((), try transports.setStatus(command.transportStatus, id: command.connectionID))
                }
            }
        }
        driver.onCommand(Transport.ManuallyTriggerTransportCommand.self) { [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try changeTransports(context.device.id) { transports throws(CameraError) in
                    let events = try transports.trigger(
                        command.connectionID, reason: command.activationReason, timeControl: command.timeControl,
                        now: .now)
                    return ((), events)
                }
            }
        }
    }

    /// Changes a camera's transports, reports `currentConnections` and emits the resulting events.
    private func changeTransports<R: Sendable>(
        _ id: String, _ body: (inout PushTransports) throws(CameraError) -> (R, [PushTransports.Event])
    ) throws(CameraError) -> R {
        try withCamera(id) { camera throws(CameraError) in
            let (result, events) = try body(&camera.transports)
            let connections = camera.transports.connections
            try? camera.device.report(Transport.self) { $0.currentConnections = connections }
            emit(events, on: camera.device)
            return result
        }
    }
}

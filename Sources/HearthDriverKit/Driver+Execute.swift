import HearthModel
import HearthProto
import HearthWire
import Logging

extension Driver {
    /// The time a command's or write's handler has: the caller's (`timeoutMs`), else the configured default.
    func handlerLimit(_ timeoutMs: UInt32) -> Duration {
        timeoutMs > 0 ? .milliseconds(timeoutMs) : configuration.defaultHandlerTimeout
    }

    /// Runs the command's handler and turns its outcome into a result. Its time limit is kept by
    /// ``InFlight``, which answers in its place when `limit` passes first.
    func execute(_ command: Hearth_V1_CommandRequest, limit: Duration) async -> Hearth_V1_CommandResult {
        let trait = TraitID(command.traitID)
        let id = CommandID(command.commandID)
        let outcome: Result<Value, any Error>
        let slot = store.slot(of: command.deviceID)
        if slot == nil {
            outcome = .failure(DriverError.unknownDevice(command.deviceID))
        } else if let offline = offline(command.deviceID, trait: trait, endpoint: command.endpoint) {
            outcome = .failure(offline)
        } else if let handler = handlers.command(trait: trait, command: id) {
            let context = CommandContext(
                device: DriverDevice(id: command.deviceID, store: store, slot: slot), endpoint: command.endpoint, trait: trait,
                command: id, fields: Value.fields(of: command.fields), deadline: .now + limit)
            do { outcome = .success(try await handler(context)) } catch { outcome = .failure(error) }
        } else {
            outcome = .failure(RPCError(code: .unimplemented, message: "this driver does not handle command \(id) of trait \(trait)"))
        }
        var result = Self.result(command.correlationID, outcome)
        if case .success(let value) = outcome { result.fields = Value.protoStruct(value.structFields ?? [:]) }
        log(result, "command \(trait)/\(id) on \(command.deviceID)")
        return result
    }

    /// Runs the trait's write handler, if any; on success stores and reports the written values. Its time
    /// limit is kept by ``InFlight``.
    func execute(_ write: Hearth_V1_WriteRequest, limit: Duration) async -> Hearth_V1_CommandResult {
        let trait = TraitID(write.traitID)
        var values: [AttributeID: Value] = [:]
        for attribute in write.attributes { values[AttributeID(attribute.id)] = Value(proto: attribute.value) }
        let device = DriverDevice(id: write.deviceID, store: store, slot: store.slot(of: write.deviceID))
        let context = WriteContext(
            device: device, endpoint: write.endpoint, trait: trait, attributes: values, deadline: .now + limit)
        let outcome: Result<Value, any Error>
        do {
            _ = try store.attributes(write.deviceID, trait: trait, endpoint: write.endpoint)  // NOT_FOUND first
            if let unreachable = offline(write.deviceID, trait: trait, endpoint: write.endpoint) { throw unreachable }
            if let handler = handlers.write(trait: trait) { try await handler(context) }
            try store.update(write.deviceID, trait: trait, endpoint: write.endpoint) { $0.merge(values) { _, new in new } }
            outcome = .success(.null)
        } catch {
            outcome = .failure(error)
        }
        let result = Self.result(write.correlationID, outcome)
        log(result, "write \(trait) on \(write.deviceID)")
        return result
    }

    /// The answer sent in place of a handler that did not finish within `limit` (it is cancelled).
    func lateResult(_ correlation: UInt64, limit: Duration, _ what: String) -> Hearth_V1_CommandResult {
        var result = Hearth_V1_CommandResult()
        result.correlationID = correlation
        result.errorCode = UInt32(Status.Code.deadlineExceeded.rawValue)
        result.errorMessage = "the driver's handler did not finish within \(limit)"
        log(result, what)
        return result
    }

    /// UNAVAILABLE when the driver has marked the trait offline (a cut cloud link, a device out of reach):
    /// nothing is run or stored for it, whatever handlers the driver has.
    private func offline(_ device: String, trait: TraitID, endpoint: UInt32) -> RPCError? {
        guard (try? store.connectivity(device, trait: trait, endpoint: endpoint)) == .offline else { return nil }
        return RPCError(code: .unavailable, message: "trait \(trait) of device '\(device)' cannot be reached now")
    }

    private static func result(_ correlation: UInt64, _ outcome: Result<Value, any Error>) -> Hearth_V1_CommandResult {
        var result = Hearth_V1_CommandResult()
        result.correlationID = correlation
        let failure: RPCError? =
            switch outcome {
            case .success: nil
            case .failure(let error as RPCError): error
            case .failure(let error as DriverError):
                switch error {
                case .unknownDevice, .unknownTrait: RPCError(code: .notFound, message: error.description)
                default: RPCError(code: .internal, message: error.description)
                }
            case .failure(is CancellationError): RPCError(code: .cancelled, message: "the driver is disconnecting")
            case .failure(let error): RPCError(code: .internal, message: "the driver's handler failed: \(error)")
            }
        if let failure {
            result.errorCode = UInt32(failure.code.rawValue)
            result.errorMessage = failure.message
        }
        return result
    }

    /// `what` is built only when something is logged: a string per command cost a few µs on every answer.
    private func log(_ result: Hearth_V1_CommandResult, _ what: @autoclosure () -> String) {
        guard result.errorCode != 0 else {
            logger.trace("driver.handled", metadata: ["call": "\(what())"])
            return
        }
        logger.notice(
            "driver.handler.failed",
            metadata: [
                "call": "\(what())", "code": "\(Status.Code(rawValue: Int(result.errorCode)))",
                "message": "\(result.errorMessage)",
            ])
    }
}

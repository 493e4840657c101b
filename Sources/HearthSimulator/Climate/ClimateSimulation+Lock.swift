import HearthDriverKit
import HearthModel
import HearthTypes
import HearthWire
import Synchronization

extension ClimateSimulation {
    /// Lock, unlock and unlock-with-timeout: refused while the lock is in privacy or no-remote mode or its
    /// actuator is disabled, and with a wrong PIN (which also raises a lockOperationError event). Each
    /// operation raises a lockOperation event; an unlock with a timeout, or with autoRelockTime set,
    /// locks again by itself when the time is up.
    func installLocks(on driver: Driver) {
        typealias Lock = Matter.DoorLockTrait
        driver.onCommand(Lock.LockDoorCommand.self) { [self] command, context in
            try operate(context, lock: true, pin: command.pinCode, relockAfter: nil)
        }
        driver.onCommand(Lock.UnlockDoorCommand.self) { [self] command, context in
            try operate(context, lock: false, pin: command.pinCode, relockAfter: nil)
        }
        driver.onCommand(Lock.UnlockWithTimeoutCommand.self) { [self] command, context in
            try operate(context, lock: false, pin: command.pinCode, relockAfter: command.timeout)
        }
    }

    private func operate(_ context: CommandContext, lock: Bool, pin: [UInt8]?, relockAfter timeout: UInt16?) throws {
        typealias Lock = Matter.DoorLockTrait
        let device = context.device
        let now = try device.attributes(Lock.self, endpoint: context.endpoint)
        let type: Lock.LockOperationTypeEnum = lock ? .lock : .unlock
        func refuse(_ error: Lock.OperationErrorEnum, _ status: Status.Code, _ message: String) throws -> Never {
            try? device.emit(
                Lock.LockOperationErrorEvent(
                    lockOperationType: type, operationSource: .remote, operationError: error, userIndex: nil,
                    fabricIndex: nil, sourceNode: nil), endpoint: context.endpoint)
            throw RPCError(code: status, message: message)
        }
        if now.operatingMode == .privacy || now.operatingMode == .noRemoteLockUnlock {
            try refuse(.restricted, .failedPrecondition, "the lock does not take remote commands in \(now.operatingMode!) mode")
        }
        if now.actuatorEnabled == false {
            try refuse(.restricted, .failedPrecondition, "the lock's actuator is disabled")
        }
        if let pin, pin != Array(configuration.lockPIN.utf8) {
            try refuse(.invalidCredential, .permissionDenied, "wrong PIN")
        }
        try device.report(Lock.self, endpoint: context.endpoint) { $0.lockState = lock ? .locked : .unlocked }
        try device.emit(Self.operation(type, source: .remote), endpoint: context.endpoint)
        let relock = lock ? nil : (timeout.map(UInt32.init) ?? now.autoRelockTime).flatMap { $0 > 0 ? $0 : nil }
        state.withLock { s in
            s.relockAt[device.id] = relock.map { ContinuousClock.now + .seconds(Int($0)) }
        }
    }
}

import HearthModel
import HearthProto
import HearthWire
import Logging
import SwiftProtobuf
import Synchronization

/// How one connection ended.
enum SessionOutcome: Sendable {
    /// ``Driver/stop()`` or cancellation: do not reconnect.
    case stopped
    /// The hub refused the driver for good.
    case fatal(DriverError)
    /// Lost; reconnect. `established`: the hub had welcomed the driver (the backoff starts over).
    case lost(any Error, established: Bool)
}

extension Driver {
    /// One connection: Hello and the announcements, then the writer (queued messages) and the reader
    /// (commands, writes, rejections) until either side ends.
    func runSession() async -> SessionOutcome {
        let established = Flag()
        let inFlight = InFlight()
        defer {
            inFlight.cancelAll()
            store.endSession()
        }
        var metadata = Metadata()
        metadata.add("authorization", "Bearer \(configuration.token)")
        do {
            try await client.bidirectional(DriverMethods.connectPreEncoded, options: CallOptions(metadata: metadata)) { call in
                var message = Hearth_V1_DriverMessage()
                message.hello.driverID = configuration.driverID
                message.hello.driverVersion = configuration.version
                let hello: [UInt8] = try message.serializedBytes()
                let (session, opening) = store.beginSession(devicesPerAnnounce: configuration.devicesPerAnnounce)
                enum Part { case writer, reader, watchdog }
                try await withThrowingTaskGroup(of: Part.self) { group in
                    // The writer runs on the connection's event loop: a batch's wait (a timer of that loop), its
                    // drain and its write to the stream wake no other thread; only a report ringing a writer that
                    // waits for work, or a result from another thread ending a wait, wakes the loop.
                    group.addTask(executorPreference: call.executor) {
                        try await call.requests.write(contentsOf: [hello] + opening.map { try $0.serializedBytes() })
                        try await self.writeQueued(call, session: session)
                        return .writer
                    }
                    // The reader too: a command read from the socket reaches its handler in place.
                    let handlerExecutor: (any TaskExecutor)? =
                        switch configuration.handlerExecution {
                        case .eventLoop: call.executor
                        case .globalExecutor: nil
                        }
                    group.addTask(executorPreference: call.executor) {
                        for try await message in call.responses {
                            self.handle(message, session: session, established: established, inFlight: inFlight, handlerExecutor: handlerExecutor)
                        }
                        return .reader
                    }
                    group.addTask {
                        // A hub that accepted the connection but never answers (one half-way through shutting
                        // down, say) must not hold the driver: no Welcome in time means try again.
                        try await Task.sleep(for: self.configuration.welcomeTimeout)
                        guard established.value else {
                            throw RPCError(
                                code: .unavailable,
                                message: "no Welcome from the hub within \(self.configuration.welcomeTimeout)")
                        }
                        return .watchdog
                    }
                    // The reader ending means the hub closed the stream: that ends the session. The writer
                    // ending means we are stopping and half-closed: the hub then closes, which ends the reader.
                    while let part = try await group.next() {
                        if part == .reader { group.cancelAll() }
                    }
                }
            }
        } catch let error as RPCError {
            switch error.code {
            case .unauthenticated, .permissionDenied: return .fatal(.refused(error.message))
            case .aborted: return .fatal(.replaced(error.message))
            default: return .lost(error, established: established.value)
            }
        } catch {
            if Task.isCancelled { return .stopped }
            return .lost(error, established: established.value)
        }
        if stopping.withLock({ $0 }) || Task.isCancelled { return .stopped }
        return .lost(RPCError(code: .unavailable, message: "the hub ended the stream"), established: established.value)
    }

    /// Writes what the store holds whenever it rings, until stopping (then half-closes) or cancelled.
    private func writeQueued(_ call: ClientCall<[UInt8], Hearth_V1_HubMessage>, session: Int)
        async throws
    {
        var wakes = store.wakes.makeAsyncIterator()
        let window = configuration.batchWindow
        var lastWrite = ContinuousClock.now - window
        while true {
            // A ring kept from before this look is answered by it; one after it ends the sleep below.
            store.windowAlarm.reset()
            let waiting = store.waiting
            // Nothing waiting means the ring was answered by the last drain: wait for the next one with no
            // timer armed. Sleeping out the window here cost a timer and a wake of the loop per report at low
            // rates: in the building mix (100 reports/s per driver) 3.2 context switches and 127-144 µs of CPU
            // per report, now 2.2 and 95-114 µs.
            if waiting != .nothing {
                // Reports arriving faster than the window gather until it has passed since the last write. A
                // command result queued meanwhile, or stopping, ends the wait: a command's caller never waits
                // for it.
                let since = ContinuousClock.now - lastWrite
                if since < window, waiting != .urgent, !stopping.withLock({ $0 }) {
                    try await call.sleep(for: window - since, endingEarlyOn: store.windowAlarm)
                }
                let (messages, dropped, totals) = try store.drain(
                    maxTraitsPerReport: configuration.maxTraitsPerReport,
                    devicesPerAnnounce: configuration.devicesPerAnnounce)
                metrics.export(totals)
                if dropped > 0 {
                    logger.warning("driver.events.dropped", metadata: ["events.dropped": "\(dropped)"])
                }
                // One append to the stream's buffer for the whole batch: one lock and one wake of the loop.
                try await call.requests.write(contentsOf: messages)
                if !messages.isEmpty { lastWrite = .now }
            }
            if stopping.withLock({ $0 }) {
                call.finishRequests()
                return
            }
            guard await wakes.next() != nil else { return }
        }
    }

    private func handle(
        _ message: Hearth_V1_HubMessage, session: Int, established: Flag, inFlight: InFlight,
        handlerExecutor: (any TaskExecutor)?
    ) {
        switch message.kind {
        case .welcome(let welcome):
            established.set()
            setConnection(.connected(epoch: welcome.epoch))
            logger.info(
                "driver.connected",
                metadata: ["driver.id": "\(welcome.driverID)", "hub.epoch": "\(welcome.epoch)"])
        case .command(let command):
            run(command.correlationID, timeoutMs: command.timeoutMs, "command \(command.traitID)/\(command.commandID)",
                session: session, inFlight: inFlight, on: handlerExecutor) { await self.execute(command, limit: $0) }
        case .write(let write):
            run(write.correlationID, timeoutMs: write.timeoutMs, "write \(write.traitID)",
                session: session, inFlight: inFlight, on: handlerExecutor) { await self.execute(write, limit: $0) }
        case .rejection(let rejection):
            logger.warning(
                "driver.rejected",
                metadata: [
                    "subject": "\(rejection.subject)", "code": "\(Status.Code(rawValue: Int(rejection.code)))",
                    "message": "\(rejection.message)",
                ])
        case .announceResult(let result):
            for rejection in result.rejected {
                logger.error(
                    "driver.announce.rejected",
                    metadata: ["device": "\(rejection.subject)", "message": "\(rejection.message)"])
            }
            logger.debug("driver.announced", metadata: ["devices": "\(result.accepted.count)"])
        case nil:
            break
        }
    }
}

extension Driver {
    /// Runs a command's or write's handler in a task of its own within its time limit (the caller's
    /// `timeoutMs`, else the default), and queues its result, or a deadline result at the limit, for
    /// `session`. `what` names it in the log, and is built only for a late answer.
    fileprivate func run(
        _ correlation: UInt64, timeoutMs: UInt32, _ what: @autoclosure @escaping @Sendable () -> String, session: Int,
        inFlight: InFlight, on executor: (any TaskExecutor)?,
        _ execute: @escaping @Sendable (Duration) async -> Hearth_V1_CommandResult
    ) {
        let limit = handlerLimit(timeoutMs)
        inFlight.start(
            correlation, limit: limit, on: executor,
            late: { self.lateResult(correlation, limit: limit, what()) },
            answer: { self.store.complete($0, session: session) }
        ) { await execute(limit) }
    }
}

/// A flag set once, read from any task.
final class Flag: Sendable {
    private let state = Mutex(false)
    var value: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}

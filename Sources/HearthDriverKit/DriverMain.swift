public import Foundation
public import Logging
public import ServiceLifecycle
import UnixSignals

extension Driver: Service {}

/// Runs a driver as a process's main work: until SIGTERM or SIGINT (then it sends what is queued and
/// disconnects cleanly), and, when the hub supervises it (`HEARTH_SUPERVISED=1`), until its standard input
/// ends because the hub went away.
///
/// ```swift
/// try await DriverMain.run(driver, logger: logger)
/// ```
public enum DriverMain {
    /// Runs `driver` and `others` (simulations, say) under one service group.
    /// - Throws: what the driver throws (``DriverError/refused(_:)`` for a refused token).
    public static func run(
        _ driver: Driver, alongside others: [any Service] = [], logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: driver)] + others.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        if environment[Driver.Configuration.supervisedVariable] == "1" {
            watchStandardInput { [group] in
                logger.notice("driver.stdin.closed: the hub went away; stopping")
                Task { await group.triggerGracefulShutdown() }
            }
        }
        try await group.run()
    }

    /// Calls `onEnd` once standard input reaches end of file. Reads on a thread of its own, since the read
    /// blocks.
    private static func watchStandardInput(_ onEnd: @escaping @Sendable () -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count == 0 || (count < 0 && errno != EINTR) { break }
            }
            onEnd()
        }
    }
}

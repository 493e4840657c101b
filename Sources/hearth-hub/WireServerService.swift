import Foundation
import HearthWire
import Logging
import ServiceLifecycle

/// Runs a ``WireServer`` as a lifecycle service: a graceful shutdown marks
/// health NOT_SERVING, then drains calls with the double GOAWAY.
struct WireServerService: Service {
    let server: WireServer
    let health: HealthService
    let logger: Logger

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                let addresses = try await server.listeningAddresses()
                for address in addresses {
                    logger.info("listening", metadata: ["hub.address": "\(address)"])
                }
                // The line scripts and tests wait for.
                print("LISTENING \(addresses.map { "\($0)" }.joined(separator: " "))")
                fflush(nil)  // all streams: stdout is not a tty under scripts
                try await group.waitForAll()
            }
        } onGracefulShutdown: {
            logger.info("shutting down gracefully")
            health.markAllNotServing()
            server.beginGracefulShutdown()
        }
    }
}

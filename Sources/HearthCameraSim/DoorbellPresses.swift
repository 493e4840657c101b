import HearthSimulator
import Logging
import ServiceLifecycle

/// Presses a random doorbell now and then: after a wait drawn between half and one and a half times
/// `every`, from the seed (so a seed gives the same doorbells in the same order). Presses while the cloud
/// link is cut are lost, as a real cloud doorbell's would be.
struct DoorbellPresses: Service {
    let every: Duration
    let seed: UInt64
    let simulation: CameraSimulation

    func run() async throws {
        let doorbells = simulation.profiles.filter { $0.kind == .doorbell }.map(\.id)
        guard !doorbells.isEmpty else { return }
        // Graceful shutdown cancels the loop; its CancellationError is the normal end, not a failure (a
        // service that throws during graceful shutdown makes the group cancel the driver instead of draining it).
        try? await cancelWhenGracefulShutdown { [every, seed, simulation] in
            var generator = SeededGenerator(seed: seed, stream: "doorbell-presses")
            while !Task.isCancelled {
                try await Task.sleep(for: every * Double.random(in: 0.5...1.5, using: &generator))
                let id = doorbells.randomElement(using: &generator)!
                do {
                    try simulation.press(id)
                } catch {
                    simulation.logger.debug("camera.doorbell.lost", metadata: ["device": "\(id)", "error": "\(error)"])
                }
            }
        }
    }
}

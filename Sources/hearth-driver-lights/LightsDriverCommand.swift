import ArgumentParser
import HearthDriverKit
import HearthSimulator
import Logging

/// `hearth-driver-lights`: simulated lights and plugs for a Hearth hub.
@main
struct LightsDriverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-driver-lights",
        abstract: "Simulated lights and plugs: on/off, dimming and colour, with transitions that take their time.")

    @OptionGroup var simulator: SimulatorOptions

    @Option(help: "Seconds between the reports of a running level or colour transition.")
    var tick: Double = 0.1

    func validate() throws {
        guard tick > 0 else { throw ValidationError("--tick must be more than 0") }
    }

    func run() async throws {
        let logger = SimulatorMain.logger("lights", simulator)
        let driver = Driver(configuration: try simulator.configuration(), logger: logger)
        var configuration = LightsSimulation.Configuration(simulator)
        configuration.tick = .milliseconds(Int(tick * 1000))
        let simulation = LightsSimulation(configuration: configuration, cloud: CloudLink(simulator))
        simulation.install(on: driver)
        logger.info(
            "lights.started",
            metadata: ["devices": "\(simulation.devices.count)", "seed": "\(simulator.seed)"])
        try await DriverMain.run(driver, alongside: simulation.services, logger: logger)
    }
}

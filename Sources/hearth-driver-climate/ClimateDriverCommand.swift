import ArgumentParser
import HearthDriverKit
import HearthSimulator
import Logging

/// `hearth-driver-climate`: simulated thermostats, sensors, fans and door locks for a Hearth hub.
@main
struct ClimateDriverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-driver-climate",
        abstract: "Simulated thermostats, temperature, humidity, occupancy and contact sensors, fans and door locks.")

    @OptionGroup var simulator: SimulatorOptions

    @Option(help: "Seconds between drift steps of the sensors and thermostats.")
    var driftInterval: Double = 5

    @Option(help: "Seconds between steps of the fans (following their setting) and the locks' relock timers.")
    var tick: Double = 0.2

    @Option(help: "The PIN locks check when a command carries one.")
    var lockPin: String = "1234"

    func validate() throws {
        guard driftInterval > 0, tick > 0 else { throw ValidationError("--drift-interval and --tick must be more than 0") }
        guard (4...8).contains(lockPin.count), lockPin.allSatisfy(\.isNumber) else {
            throw ValidationError("--lock-pin must be 4 to 8 digits")
        }
    }

    func run() async throws {
        let logger = SimulatorMain.logger("climate", simulator)
        let driver = Driver(configuration: try simulator.configuration(), logger: logger)
        var configuration = ClimateSimulation.Configuration(simulator)
        configuration.driftInterval = .milliseconds(Int(driftInterval * 1000))
        configuration.tick = .milliseconds(Int(tick * 1000))
        configuration.lockPIN = lockPin
        let simulation = ClimateSimulation(configuration: configuration, cloud: CloudLink(simulator))
        simulation.install(on: driver)
        logger.info(
            "climate.started",
            metadata: ["devices": "\(simulation.devices.count)", "seed": "\(simulator.seed)"])
        try await DriverMain.run(driver, alongside: simulation.services, logger: logger)
    }
}

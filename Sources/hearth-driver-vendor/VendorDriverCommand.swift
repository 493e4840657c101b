import ArgumentParser
import HearthDriverKit
import HearthSimulator
import Logging

/// `hearth-driver-vendor`: a vendor's devices for a Hearth hub: spinners with a vendor trait whose schema
/// the driver announces, and speakers that are also lights.
@main
struct VendorDriverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-driver-vendor",
        abstract: "Simulated vendor devices: ExampleOrganization spinners (schema announced at run time) and speaker lamps.")

    @OptionGroup var simulator: SimulatorOptions

    @Option(help: "Seconds between the reports of a running level transition.")
    var tick: Double = 0.1

    @Option(help: "Seconds between the spinners' speed reports.")
    var spinInterval: Double = 1

    func validate() throws {
        guard tick > 0, spinInterval > 0 else { throw ValidationError("--tick and --spin-interval must be more than 0") }
    }

    func run() async throws {
        let logger = SimulatorMain.logger("vendor", simulator)
        var driverConfiguration = try simulator.configuration()
        driverConfiguration.vendorTraitSchemas = VendorSimulation.vendorTraitSchemas
        let driver = Driver(configuration: driverConfiguration, logger: logger)
        var configuration = VendorSimulation.Configuration(simulator)
        configuration.tick = .milliseconds(Int(tick * 1000))
        configuration.spinInterval = .milliseconds(Int(spinInterval * 1000))
        let simulation = VendorSimulation(configuration: configuration, cloud: CloudLink(simulator))
        simulation.install(on: driver)
        logger.info(
            "vendor.started",
            metadata: ["devices": "\(simulation.devices.count)", "seed": "\(simulator.seed)"])
        try await DriverMain.run(driver, alongside: simulation.services, logger: logger)
    }
}

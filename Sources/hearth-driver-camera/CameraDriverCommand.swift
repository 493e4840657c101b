import ArgumentParser
import HearthCameraSim
import HearthDriverKit
import HearthSimulator
import Logging

/// `hearth-driver-camera`: simulated cameras and doorbells (live view over SDP, push transports, settings,
/// doorbell presses) for a Hearth hub.
@main
struct CameraDriverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-driver-camera",
        abstract: "Simulated cameras and doorbells for a Hearth hub (driver id: camera).")

    @OptionGroup var simulator: SimulatorOptions

    @Option(help: "Mean seconds between presses of some doorbell (0: never).")
    var pressEvery: Double = 300

    @Option(help: "Seconds a live-view session lives unless extended.")
    var liveSessionSeconds: UInt32 = 300

    func validate() throws {
        guard pressEvery >= 0 else { throw ValidationError("--press-every must be 0 or more") }
        guard liveSessionSeconds >= 1 else { throw ValidationError("--live-session-seconds must be at least 1") }
    }

    func run() async throws {
        let logger = SimulatorMain.logger("camera", simulator)
        let driver = Driver(configuration: try simulator.configuration(), logger: logger)
        let cameras = CameraSimulation(
            driver: driver,
            configuration: .init(simulator, liveSessionSeconds: liveSessionSeconds, pressEvery: pressEvery),
            cloud: CloudLink(simulator), logger: logger)
        logger.info(
            "camera.started",
            metadata: [
                "devices": "\(cameras.profiles.count)", "seed": "\(simulator.seed)",
                "doorbells": "\(cameras.profiles.filter { $0.kind == .doorbell }.count)",
            ])
        try await DriverMain.run(driver, alongside: cameras.services, logger: logger)
    }
}

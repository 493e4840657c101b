public import Logging

/// Shared pieces of a simulated driver's `main` (which ends in `DriverMain.run(driver, alongside: services,
/// logger:)`).
public enum SimulatorMain {
    /// A logger labelled `hearth.driver.<name>` at the options' level.
    public static func logger(_ name: String, _ options: SimulatorOptions) -> Logger {
        var logger = Logger(label: "hearth.driver.\(name)")
        logger.logLevel = Logger.Level(rawValue: options.logLevel) ?? .info
        return logger
    }
}

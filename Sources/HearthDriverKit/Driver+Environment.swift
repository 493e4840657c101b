public import Foundation
public import HearthWire

extension Driver.Configuration {
    /// The environment variable with the hub's address: `unix:/run/hearth/hub.sock` or `host:port`.
    public static let hubVariable = "HEARTH_HUB"
    /// The environment variable with the driver's token.
    public static let tokenVariable = "HEARTH_DRIVER_TOKEN"
    /// Set (to `1`) by the hub for the plugins it supervises: the driver exits when its standard input ends,
    /// which happens when the hub dies, even by SIGKILL.
    public static let supervisedVariable = "HEARTH_SUPERVISED"

    /// A configuration from explicit values, falling back to the environment (`HEARTH_HUB`,
    /// `HEARTH_DRIVER_TOKEN`, as the hub's supervisor sets them) and then to the defaults
    /// (`127.0.0.1:7070`).
    /// - Throws: ``DriverError/configuration(_:)`` for a malformed address or a missing token.
    public static func fromEnvironment(
        hub: String? = nil, token: String? = nil, driverID: String = "",
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DriverError) -> Driver.Configuration {
        let address = hub ?? environment[hubVariable] ?? "127.0.0.1:7070"
        guard let token = token ?? environment[tokenVariable], !token.isEmpty else {
            throw .configuration("no token: pass --token or set \(tokenVariable)")
        }
        return Driver.Configuration(hub: try parseTarget(address), token: token, driverID: driverID)
    }

    /// `unix:/path`, `/path` (a socket), `host:port` or `[v6]:port`.
    public static func parseTarget(_ address: String) throws(DriverError) -> WireClient.Target {
        guard let target = WireClient.Target(address: address) else {
            throw .configuration("the hub address must be unix:/path or host:port, got '\(address)'")
        }
        return target
    }
}

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
    /// Set to `1` to connect with TLS (implied by any other `HEARTH_TLS_*` variable).
    public static let tlsVariable = "HEARTH_TLS"
    /// A PEM file of trusted roots for the hub's certificate (say, its self-signed certificate); default:
    /// the system's roots.
    public static let tlsCAVariable = "HEARTH_TLS_CA"
    /// The driver's PEM client certificate chain, for a hub that asks for one (mutual TLS).
    public static let tlsCertificateVariable = "HEARTH_TLS_CERT"
    /// The private key of `HEARTH_TLS_CERT`.
    public static let tlsKeyVariable = "HEARTH_TLS_KEY"
    /// The name checked against the hub's certificate and sent in SNI; default: the address's host.
    public static let tlsServerNameVariable = "HEARTH_TLS_SERVER_NAME"

    /// A configuration from explicit values, falling back to the environment (`HEARTH_HUB`,
    /// `HEARTH_DRIVER_TOKEN`, as the hub's supervisor sets them, and `HEARTH_TLS*`) and then to the defaults
    /// (`127.0.0.1:7070`, plaintext).
    /// - Parameter tls: TLS settings; nil: from `HEARTH_TLS`, `HEARTH_TLS_CA`, `HEARTH_TLS_CERT`,
    ///   `HEARTH_TLS_KEY` and `HEARTH_TLS_SERVER_NAME`, or plaintext when none is set.
    /// - Throws: ``DriverError/configuration(_:)`` for a malformed address, a missing token, or a client
    ///   certificate without its key.
    public static func fromEnvironment(
        hub: String? = nil, token: String? = nil, driverID: String = "", tls: WireClient.TLS? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DriverError) -> Driver.Configuration {
        let address = hub ?? environment[hubVariable] ?? "127.0.0.1:7070"
        guard let token = token ?? environment[tokenVariable], !token.isEmpty else {
            throw .configuration("no token: pass --token or set \(tokenVariable)")
        }
        var configuration = Driver.Configuration(hub: try parseTarget(address), token: token, driverID: driverID)
        if let tls {
            configuration.tls = tls
        } else {
            configuration.tls = try tlsFromEnvironment(environment)
        }
        return configuration
    }

    /// TLS settings from `HEARTH_TLS*`, or nil when none is set.
    static func tlsFromEnvironment(_ environment: [String: String]) throws(DriverError) -> WireClient.TLS? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let ca = value(tlsCAVariable)
        let certificate = value(tlsCertificateVariable)
        let key = value(tlsKeyVariable)
        let serverName = value(tlsServerNameVariable)
        let on = value(tlsVariable).map { $0 != "0" } ?? false
        guard on || ca != nil || certificate != nil || key != nil || serverName != nil else { return nil }
        guard (certificate == nil) == (key == nil) else {
            throw .configuration("\(tlsCertificateVariable) and \(tlsKeyVariable) go together")
        }
        var tls = WireClient.TLS(trustRoots: ca.map { .file($0) } ?? .system)
        tls.certificateChain = certificate
        tls.privateKey = key
        tls.serverName = serverName
        return tls
    }

    /// `unix:/path`, `/path` (a socket), `host:port` or `[v6]:port`.
    public static func parseTarget(_ address: String) throws(DriverError) -> WireClient.Target {
        guard let target = WireClient.Target(address: address) else {
            throw .configuration("the hub address must be unix:/path or host:port, got '\(address)'")
        }
        return target
    }
}

public import ArgumentParser
public import HearthDriverKit
import HearthWire

/// The command line every simulated driver shares: how many devices, which seed, which hub.
///
/// The hub's supervisor passes the hub and token in the environment (`HEARTH_HUB`,
/// `HEARTH_DRIVER_TOKEN`); `--hub` and `--token` are for running a driver by hand.
public struct SimulatorOptions: ParsableArguments, Sendable {
    @Option(help: "How many devices to simulate.")
    public var devices: Int

    @Option(help: "Seed of the simulation: the same seed gives the same devices, rooms and values.")
    public var seed: UInt64 = 1

    @Option(help: "The hub: unix:/path/to/hub.sock or host:port (default: $HEARTH_HUB, else 127.0.0.1:7070).")
    public var hub: String?

    @Option(help: "The driver token (default: $HEARTH_DRIVER_TOKEN).")
    public var token: String?

    @Option(help: "Driver id the token is bound to (checked by the hub; default: whatever the token says).")
    public var driverID: String = ""

    @Flag(help: "Connect with TLS (default: from $HEARTH_TLS and the other HEARTH_TLS_* variables).")
    public var tls = false

    @Option(help: ArgumentHelp("PEM file of roots to trust, e.g. the hub's self-signed certificate (implies --tls).", valueName: "file"))
    public var tlsCA: String?

    @Option(help: ArgumentHelp("PEM client certificate for a hub that requires one (mutual TLS; implies --tls).", valueName: "file"))
    public var tlsCert: String?

    @Option(help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "file"))
    public var tlsKey: String?

    @Option(help: "Name to check the hub's certificate against (default: the --hub host).")
    public var tlsServerName: String?

    @Option(help: "Share of devices whose platform traits are cloud-routed (remote), 0 to 1.")
    public var remoteShare: Double = 0.25

    @Option(help: "Seconds between simulated cloud outages of the remote traits (0: never).")
    public var cloudOutageEvery: Double = 0

    @Option(help: "Seconds each cloud outage lasts.")
    public var cloudOutageLength: Double = 10

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    public var logLevel: String = "info"

    public init() {}

    public func validate() throws {
        guard devices >= 0 else { throw ValidationError("--devices must be 0 or more") }
        guard (0...1).contains(remoteShare) else { throw ValidationError("--remote-share must be between 0 and 1") }
        guard cloudOutageEvery >= 0, cloudOutageLength > 0 else {
            throw ValidationError("--cloud-outage-every must be 0 or more and --cloud-outage-length more than 0")
        }
    }

    /// The driver's connection settings from these options and the environment.
    public func configuration() throws -> Driver.Configuration {
        try Driver.Configuration.fromEnvironment(hub: hub, token: token, driverID: driverID, tls: try tlsSettings())
    }

    /// TLS from the flags; nil when none is given (then `HEARTH_TLS*` decide).
    func tlsSettings() throws -> WireClient.TLS? {
        guard tls || tlsCA != nil || tlsCert != nil || tlsKey != nil || tlsServerName != nil else { return nil }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        var settings = WireClient.TLS(trustRoots: tlsCA.map { .file($0) } ?? .system)
        settings.certificateChain = tlsCert
        settings.privateKey = tlsKey
        settings.serverName = tlsServerName
        return settings
    }
}

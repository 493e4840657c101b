import ArgumentParser
import Foundation
import HearthSDK
import HearthWire

/// Where the hub is, who is asking, and how to print.
struct HubOptions: ParsableArguments {
    @Option(help: "The hub: host:port or unix:/path (default: $HEARTH_HUB, else 127.0.0.1:7070).")
    var hub: String?

    @Option(help: "A client token from the hub's config (default: $HEARTH_TOKEN).")
    var token: String?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: "Seconds to wait for the hub's answers.")
    var timeout: Double = 30

    @Flag(help: "Connect with TLS (default: on if $HEARTH_TLS is 1 or any --tls-* option is given).")
    var tls = false

    @Option(help: ArgumentHelp("PEM file of roots to trust, e.g. the hub's self-signed certificate (default: $HEARTH_TLS_CA, else the system's roots).", valueName: "file"))
    var tlsCA: String?

    @Option(help: ArgumentHelp("PEM client certificate for a hub that asks for one (default: $HEARTH_TLS_CERT).", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("PEM private key of --tls-cert (default: $HEARTH_TLS_KEY).", valueName: "file"))
    var tlsKey: String?

    @Option(help: "Name to check the hub's certificate against (default: $HEARTH_TLS_SERVER_NAME, else the host).")
    var tlsServerName: String?

    /// TLS from the flags, then the environment; nil for plaintext.
    func tlsSettings(_ environment: [String: String]) throws -> WireClient.TLS? {
        func value(_ flag: String?, _ name: String) -> String? {
            flag ?? environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        let ca = value(tlsCA, "HEARTH_TLS_CA")
        let certificate = value(tlsCert, "HEARTH_TLS_CERT")
        let key = value(tlsKey, "HEARTH_TLS_KEY")
        let serverName = value(tlsServerName, "HEARTH_TLS_SERVER_NAME")
        let on = tls || (environment["HEARTH_TLS"].map { !$0.isEmpty && $0 != "0" } ?? false)
        guard on || ca != nil || certificate != nil || key != nil || serverName != nil else { return nil }
        guard (certificate == nil) == (key == nil) else {
            throw Failure(.invalidArgument, "--tls-cert and --tls-key go together")
        }
        var settings = WireClient.TLS(trustRoots: ca.map { .file($0) } ?? .system)
        settings.certificateChain = certificate
        settings.privateKey = key
        settings.serverName = serverName
        return settings
    }

    func connect() throws -> Home {
        let environment = ProcessInfo.processInfo.environment
        guard let token = token ?? environment["HEARTH_TOKEN"], !token.isEmpty else {
            throw Failure(.unauthenticated, "no token: pass --token or set HEARTH_TOKEN")
        }
        var configuration = Home.Configuration()
        configuration.syncTimeout = .milliseconds(Int(timeout * 1000))
        configuration.callTimeout = .milliseconds(Int(timeout * 1000))
        configuration.tls = try tlsSettings(environment)
        return try Home.connect(
            to: hub ?? environment["HEARTH_HUB"] ?? "127.0.0.1:7070", token: token, configuration: configuration)
    }
}

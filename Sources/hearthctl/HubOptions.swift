import ArgumentParser
import Foundation
import HearthSDK

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

    func connect() throws -> Home {
        let environment = ProcessInfo.processInfo.environment
        guard let token = token ?? environment["HEARTH_TOKEN"], !token.isEmpty else {
            throw Failure(.unauthenticated, "no token: pass --token or set HEARTH_TOKEN")
        }
        var configuration = Home.Configuration()
        configuration.syncTimeout = .milliseconds(Int(timeout * 1000))
        configuration.callTimeout = .milliseconds(Int(timeout * 1000))
        return try Home.connect(
            to: hub ?? environment["HEARTH_HUB"] ?? "127.0.0.1:7070", token: token, configuration: configuration)
    }
}

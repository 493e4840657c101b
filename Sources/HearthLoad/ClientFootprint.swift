import Foundation
import HearthSDK

/// What one HearthSDK client costs, measured in a process of its own: the time from `Home.connect` to
/// the first `list()`, and the resident memory its cache adds per device.
public struct ClientFootprint: Codable, Sendable, Hashable {
    /// Devices listed.
    public var devices: Int
    /// Seconds from `Home.connect` to `list()` returning.
    public var listSeconds: Double
    /// Resident memory before connecting and after the list, in bytes.
    public var residentBefore: UInt64
    public var residentAfter: UInt64

    /// Added resident bytes per device.
    public var bytesPerDevice: Double {
        devices == 0 ? 0 : Double(Int64(residentAfter) - Int64(residentBefore)) / Double(devices)
    }

    /// Connects, lists, lets the cache settle for a second, and measures this process. A first connection
    /// with a token the hub refuses brings up what every client has whatever the home's size (event loops,
    /// buffers), so that the difference is the cache's.
    public static func measure(address: String, token: String) async throws -> ClientFootprint {
        let warmUp = try Home.connect(to: address, token: "hearth-load-refused-token")
        _ = try? await warmUp.devices().list()
        warmUp.close()
        try await Task.sleep(for: .milliseconds(200))
        let before = ProcessStats.of(getpid())?.residentBytes ?? 0
        let start = LoadProbe.now()
        var configuration = Home.Configuration()
        configuration.syncTimeout = .seconds(600)
        let home = try Home.connect(to: address, token: token, configuration: configuration)
        let count = try await home.devices().list().count
        let seconds = Double(LoadProbe.now() - start) / 1e9
        try await Task.sleep(for: .seconds(1))
        let after = ProcessStats.of(getpid())?.residentBytes ?? 0
        home.close()
        return ClientFootprint(devices: count, listSeconds: seconds, residentBefore: before, residentAfter: after)
    }
}

/// The footprint as one line between processes (its memberwise initializer stays synthesized).
extension ClientFootprint {
    /// The line the `sdk-client` process prints.
    public var line: String { "FOOTPRINT \(devices) \(listSeconds) \(residentBefore) \(residentAfter)" }

    /// Parses ``line``.
    public init?(line: String) {
        let words = line.split(separator: " ")
        guard words.count == 5, words[0] == "FOOTPRINT", let devices = Int(words[1]), let seconds = Double(words[2]),
            let before = UInt64(words[3]), let after = UInt64(words[4])
        else { return nil }
        self.init(devices: devices, listSeconds: seconds, residentBefore: before, residentAfter: after)
    }
}

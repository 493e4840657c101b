import Foundation
import HearthHub
import HearthSDK
import HearthTesting
import Testing

/// Sources/hearth-guide-examples: programs written as Google's Home APIs guides for iOS write them
/// (Combine chains with value-only `sink`, `combineLatest` of rooms and devices, an unretained subscription,
/// attributes read both ways, BasicInformation, camera option changes, a vendor trait on a standard light),
/// compiled with the package and run here against the demo home under a real hub.
@Suite("Code in the guides' style against the demo home")
struct GuideStyleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// What each program must print besides its `OK` line.
    static let expectations: [(program: String, output: [String])] = [
        ("rooms-with-devices", ["Kitchen: ", "combined: "]),
        ("unretained-subscription", [" turned "]),
        ("attributes-both-ways", ["checked "]),
        ("basic-information", ["camera/camera-0: Hearth (65521) Hearth Cam"]),
        ("camera-options", ["wake-up sensitivity ", "maximum event length "]),
        ("vendor-trait-on-light", ["is an on/off light spinning at", "now spins at about 600 rpm"]),
        ("merged-devices", ["merged: "]),
    ]

    @Test("every guide-style program compiles and does what the guides promise")
    func programs() async throws {
        try await withTemporaryDirectory { dir in
            let hub = try await HubProcess(
                directory: dir, config: Self.root.appendingPathComponent("deploy/hearth-hub.demo.json"),
                arguments: ["--metrics-listen", "127.0.0.1:0"])
            defer { hub.terminate() }
            let home = try Home.connect(to: "127.0.0.1:\(hub.port)", token: "demo-admin")
            defer { home.close() }
            // The whole demo home online, the cameras and the mirror ball included.
            _ = try await eventually(timeout: .seconds(60)) { () -> Bool? in
                let drivers = try await home.drivers()
                let devices = try await home.devices().list()
                guard drivers.filter({ $0.processState == .running && $0.isConnected }).count == 4,
                    devices.count == drivers.map(\.devices).reduce(0, +),
                    devices.allSatisfy({ $0.sourceConnectivity.connectivityState != .unknown })
                else { return nil }
                return true
            }
            let executable = builtProduct("hearth-guide-examples")
            for (program, expected) in Self.expectations {
                let outcome = try await ChildProcessIO.run(
                    executable, ["127.0.0.1:\(hub.port)", "demo-admin", program], timeout: .seconds(60))
                #expect(outcome.status == 0, "\(program): \(outcome.output)")
                #expect(outcome.output.contains("OK \(program)"), "\(program): \(outcome.output)")
                for line in expected {
                    #expect(outcome.output.contains(line), "\(program) lacks '\(line)': \(outcome.output)")
                }
            }
        }
    }
}

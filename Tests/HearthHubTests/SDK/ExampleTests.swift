import Foundation
import HearthDriverKit
import HearthHub
import HearthModel
import HearthProto
import HearthTesting
import HearthTypes
import HearthWire
import Synchronization
import Testing

/// The README's HearthSDK example: the same code as Sources/hearth-sdk-example, built and run here.
@Suite("The README's HearthSDK example")
struct ExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("the README shows exactly Sources/hearth-sdk-example/main.swift")
    func readmeMatchesSource() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/hearth-sdk-example/main.swift"), encoding: .utf8)
        let marker = "<!-- example: Sources/hearth-sdk-example/main.swift -->\n```swift\n"
        let start = try #require(readme.range(of: marker), "README lacks the example marker")
        let end = try #require(readme.range(of: "```\n", range: start.upperBound..<readme.endIndex))
        #expect(String(readme[start.upperBound..<end.lowerBound]) == source)
    }

    @Test("it lists devices by room and toggles a light")
    func runs() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let driver = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                var lamp = dimmableLight("lamp", name: "Desk lamp")
                lamp.room = "Office"
                driver.add(lamp)
                driver.add(dimmableLight("spare", name: "Spare lamp"))
                let toggled = Mutex(false)
                driver.onCommand(Matter.OnOffTrait.ToggleCommand.self) { _, _ in toggled.withLock { $0 = true } }
                try await withDriver(driver) {
                    try await client.waitForDevice("lights/spare") { $0.connectivity == .online }
                    let executable = builtProduct("hearth-sdk-example")
                    let outcome = try await ChildProcessIO.run(
                        executable, ["127.0.0.1:\(client.port)", Tokens.admin], timeout: .seconds(60))
                    #expect(outcome.status == 0, "\(outcome.output)")
                    #expect(outcome.output.contains("Office:\n  Desk lamp (online)"), "\(outcome.output)")
                    #expect(outcome.output.contains("Not in a room: Spare lamp"), "\(outcome.output)")
                    #expect(outcome.output.contains("Toggled Desk lamp: it was off"), "\(outcome.output)")
                    #expect(toggled.withLock { $0 })
                }
            }
        }
    }
}

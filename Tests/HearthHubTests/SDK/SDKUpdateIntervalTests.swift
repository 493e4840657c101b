import HearthDriverKit
import HearthSDK
import HearthTypes
import Testing

/// `Home.Configuration.updateInterval`: the hub gathers changes and sends them at most once per interval.
@Suite("HearthSDK: the update interval")
struct SDKUpdateIntervalTests {
    @Test("an interval below zero or above one second is refused at connect", arguments: [
        Duration.milliseconds(-1), .milliseconds(1001), .seconds(5),
    ])
    func outOfRange(_ interval: Duration) throws {
        var configuration = Home.Configuration()
        configuration.updateInterval = interval
        do {
            let home = try Home.connect(to: "127.0.0.1:1", token: "t", configuration: configuration)
            home.close()
            Issue.record("connect accepted an update interval of \(interval)")
        } catch {
            #expect(error.code == .invalidArgument, "\(error)")
            #expect(error.message.contains("updateInterval"), "\(error)")
        }
    }

    @Test("with an interval, the cache reaches the last of twenty states reported back to back")
    func reachesEveryState() async throws {
        var configuration = Home.Configuration()
        configuration.updateInterval = .milliseconds(200)
        try await withHomeAndLights(["lamp"], configuration: configuration) { _, _, driver, home in
            let lamp = try #require(try await home.devices().list().first)
            // Reports made back to back: the hub sends them gathered, and the cache ends at the last one.
            for level in 1...20 {
                try driver.device("lamp")?.report(Matter.LevelControlTrait.self) { $0.currentLevel = UInt8(level) }
            }
            let light = try await eventually { () -> DimmableLightDeviceType? in
                let now = await lamp.types.get(DimmableLightDeviceType.self)
                return now?.matterTraits.levelControlTrait?.attributes.currentLevel == 20 ? now : nil
            }
            #expect(light.matterTraits.levelControlTrait?.attributes.currentLevel == 20)
        }
    }
}

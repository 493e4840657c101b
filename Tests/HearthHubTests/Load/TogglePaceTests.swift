import HearthDriverKit
import HearthHub
@testable import HearthLoad
import HearthSDK
import HearthTypes
import Testing

/// `hearth-load toggle`'s measuring loop against a real hub and lights driver: every call is answered and
/// counted (enough of them for the process's CPU, read in clock ticks, to show), the light ends where an odd
/// number of toggles leaves it, and a device that is not there is a
/// clear `notFound` before any call.
@Suite struct TogglePaceTests {
    @Test func togglesAtItsPaceAndCountsEveryCall() async throws {
        try await withHomeAndLights(["lamp"]) { _, client, driver, home in
            // The test's lights answer on, off and writes; a toggle is the load driver's, given here.
            driver.onCommand(Matter.OnOffTrait.ToggleCommand.self) { _, context in
                let now = try context.device.attributes(Matter.OnOffTrait.self, endpoint: context.endpoint)
                try context.device.report(Matter.OnOffTrait.self, endpoint: context.endpoint) { $0.onOff = !(now.onOff ?? false) }
            }
            let lamp = try #require(try await home.devices().list().first)
            let before = try #require(await lamp.types.get(DimmableLightDeviceType.self)?.matterTraits.onOffTrait?.attributes.onOff)
            let outcome = try await TogglePace.run(
                address: "127.0.0.1:\(client.port)", token: Tokens.admin, device: "lights/lamp", rate: 1000, calls: 201)
            #expect(outcome.ok == 201)
            #expect(outcome.errors.isEmpty)
            #expect(outcome.fromCall.count == 201)
            #expect(outcome.fromCall.p50 > 0 && outcome.fromCall.p50 <= outcome.fromCall.max)
            #expect(outcome.cpuPerCall > 0)
            _ = try await eventually { () -> Bool? in
                let now = await lamp.types.get(DimmableLightDeviceType.self)?.matterTraits.onOffTrait?.attributes.onOff
                return now == !before ? true : nil
            }
        }
    }

    @Test func aMissingDeviceIsNotFoundBeforeAnyCall() async throws {
        try await withHomeAndLights(["lamp"]) { _, client, _, _ in
            do {
                _ = try await TogglePace.run(
                    address: "127.0.0.1:\(client.port)", token: Tokens.admin, device: "lights/none", rate: 100, calls: 5)
                Issue.record("a missing device was toggled")
            } catch let error as HomeError {
                #expect(error.code == .notFound)
            }
        }
    }
}

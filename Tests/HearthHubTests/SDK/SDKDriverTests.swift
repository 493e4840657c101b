import Foundation
import HearthHub
import HearthSDK
import Testing

/// The Hearth additions for tools, `Home.drivers()` and `Home.restartDriver(id:)`, against a hub supervising a
/// plugin process (the policy and script helpers of `SupervisionTests`).
@Suite("HearthSDK driver tools: drivers(), restartDriver(id:)")
struct SDKDriverTests {
    @Test("drivers() shows a supervised plugin running; restartDriver(id:) starts a new process; refusals as HomeError")
    func restart() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir, configure: {
                $0.plugins = [SupervisionTests.shell("steady", "exec sleep 600")]
                $0.supervision = SupervisionTests.fastPolicy()
            }) { _, client in
                let home = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.admin)
                let viewer = try Home.connect(to: "127.0.0.1:\(client.port)", token: Tokens.viewer)
                defer {
                    home.close()
                    viewer.close()
                }
                let first = try await eventually { try await home.drivers().first { $0.id == "steady" && $0.pid > 0 } }
                // `sleep` never connects: its process runs, but the driver is `starting` until it has a session.
                #expect(first.processState == .starting && !first.isConnected)
                #expect(first.restarts == 0 && first.devices == 0 && first.lastExit.isEmpty)

                let restarted = try await home.restartDriver(id: "steady")
                #expect(restarted.id == "steady" && restarted.processState != .failed)
                let second = try await eventually {
                    try await home.drivers().first { $0.id == "steady" && $0.pid > 0 && $0.pid != first.pid }
                }
                #expect(second.restarts == 0 && second.lastExit == "killed by signal 15")

                await expectHomeError(.notFound) { _ = try await home.restartDriver(id: "nobody") }
                await expectHomeError(.permissionDenied) { _ = try await viewer.restartDriver(id: "steady") }
            }
        }
    }
}

import Foundation
import HearthHub
import HearthProto
import HearthWire
import NIOCore
import SwiftProtobuf
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Metrics and health: the Prometheus page, /healthz, gRPC health per service")
struct HubMetricsTests {
    /// A GET over plain HTTP/1.1, as Prometheus would scrape.
    static func get(_ port: Int, _ path: String, method: String = "GET") async throws -> (status: Int, body: String, type: String?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!, timeoutInterval: 20)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "Content-Type"))
    }

    /// The value of an unlabelled sample, or of the first sample whose line contains `labels`.
    static func sample(_ page: String, _ name: String, labels: String = "") -> Double? {
        page.split(separator: "\n")
            .first { $0.hasPrefix(name + (labels.isEmpty ? " " : "{")) && (labels.isEmpty || $0.contains(labels)) }
            .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }

    @Test("the page counts changes, commits, watch streams, commands by outcome, and reads gauges fresh")
    func page() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir, configure: { $0.metricsListen = .tcp(host: "127.0.0.1", port: 0) }) {
                hub, client in
                let port = try #require(hub.metricsAddress?.port)
                _ = try await client.call(HomeMethods.renameStructure, .with { $0.structureID = "home"; $0.name = "Cottage" })
                try await withTestDriver(client, devices: [onOffLight("lamp")]) { _ in
                    _ = try await client.call(HomeMethods.sendCommand, HubDriverTests.toggle)
                    await expectStatus(.notFound) {
                        _ = try await client.call(HomeMethods.sendCommand, HubDriverTests.toggle.with { $0.deviceID = "lights/none" })
                    }
                    _ = try await client.watch(.from(0)) { $0.synced }
                    // A resume replays the retained log: that read lands in the backlog histogram.
                    let now = try await client.call(HomeMethods.getHub, .init())
                    _ = try await client.watch(.from(1, epoch: now.epoch)) { $0.contains { $0.revision >= now.revision } }

                    let (status, page, type) = try await Self.get(port, "/metrics")
                    #expect(status == 200)
                    #expect(type?.hasPrefix("text/plain; version=0.0.4") == true)
                    let revision = try await client.call(HomeMethods.getHub, .init()).revision
                    #expect(Self.sample(page, "hearth_revision") == Double(revision))
                    #expect(Self.sample(page, "hearth_devices") == 1)
                    #expect(Self.sample(page, "hearth_driver_sessions") == 1)
                    #expect((Self.sample(page, "hearth_connections") ?? 0) >= 1)
                    // The rename and the announcement were published and committed.
                    #expect((Self.sample(page, "hearth_changes_total") ?? 0) >= 2)
                    #expect((Self.sample(page, "hearth_commit_duration_seconds_count") ?? 0) >= 2)
                    #expect(Self.sample(page, "hearth_commands_total", labels: #"kind="command",code="OK""#) == 1)
                    #expect(Self.sample(page, "hearth_commands_total", labels: #"kind="command",code="NOT_FOUND""#) == 1)
                    // The OK series of each kind is there from the start (made once, not per call).
                    #expect(Self.sample(page, "hearth_commands_total", labels: #"kind="write",code="OK""#) == 0)
                    #expect(Self.sample(page, "hearth_command_duration_seconds_count", labels: #"kind="command""#) == 2)
                    // Every bucket line prints even when empty: the count shows a watch read was recorded.
                    #expect(page.contains("hearth_watch_backlog_revisions_bucket"))
                    #expect((Self.sample(page, "hearth_watch_backlog_revisions_count") ?? 0) >= 1)
                }
                // The same figures are available in process.
                let text = await hub.metricsText()
                #expect(Self.sample(text, "hearth_driver_sessions") == 0)
                #expect(Self.sample(text, "hearth_watch_streams") == 0)
            }
        }
    }

    @Test("/healthz answers 200 while serving; unknown paths 404, other methods 405; gRPC health names each service")
    func health() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir, configure: { $0.metricsListen = .tcp(host: "127.0.0.1", port: 0) }) {
                hub, client in
                let port = try #require(hub.metricsAddress?.port)
                let healthz = try await Self.get(port, "/healthz")
                #expect(healthz.status == 200 && healthz.body == "ok\n")
                #expect(try await Self.get(port, "/nope").status == 404)
                #expect(try await Self.get(port, "/metrics", method: "POST").status == 405)
                for service in ["", HomeMethods.service, DriverMethods.service] {
                    let answer = try await client.call(HealthService.check, .with { $0.service = service }, token: nil)
                    #expect(answer.status == .serving, "\(service)")
                }
                await expectStatus(.notFound) {
                    _ = try await client.call(HealthService.check, .with { $0.service = "hearth.v1.Nope" }, token: nil)
                }
                hub.health.markAllNotServing()
                #expect(try await Self.get(port, "/healthz").status == 503)
            }
        }
    }
}

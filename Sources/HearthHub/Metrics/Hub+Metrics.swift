import HearthWire
import HearthProto
public import NIOCore
import NIOHTTP1

extension Hub {
    /// The Prometheus page now (text format 0.0.4): counters and histograms as counted, gauges read fresh.
    public func metricsText() async -> String {
        guard let engine = loader.loaded else { return metrics.render() }
        let figures = await engine.statistics()
        metrics.refresh(
            revision: figures.revision, devices: figures.devices, drivers: figures.connectedDrivers,
            connections: server.openConnections, runningCalls: server.runningHandlers)
        metrics.refresh(wire: server.statistics)
        metrics.refresh(storageFaults: Set(await engine.storageFaults().map(\.path)))
        metrics.refresh(memory: .current(engine: engine))
        return metrics.render()
    }

    /// Where the metrics page is served, if ``Configuration/metricsListen`` is set.
    public var metricsAddress: NIOCore.SocketAddress? { metricsEndpoint?.address }

    func respond(to path: String) async -> MetricsEndpoint.Response {
        switch path {
        case "/metrics":
            return .init(status: .ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: await metricsText())
        case "/healthz":
            guard health.isServing(HomeMethods.service) else {
                return .init(status: .serviceUnavailable, body: "shutting down\n")
            }
            guard let engine = loader.loaded else { return .init(status: .serviceUnavailable, body: "loading\n") }
            // The hub still serves reads and trait state, but refuses what a person changes: not healthy.
            let faults = await engine.storageFaults()
            guard faults.isEmpty else {
                return .init(
                    status: .serviceUnavailable,
                    body: "storage fault: " + faults.map(\.description).joined(separator: "; ") + "\n")
            }
            return .init(status: .ok, body: "ok\n")
        default:
            return .init(status: .notFound, body: "not found: try /metrics or /healthz\n")
        }
    }
}

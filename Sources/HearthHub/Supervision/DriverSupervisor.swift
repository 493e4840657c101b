import Foundation
import HearthModel
import Logging

/// Starts the hub's driver plugins, restarts them when they exit (with capped, jittered backoff), marks a
/// plugin that keeps crashing as failed until it is restarted by hand, and stops them with the hub.
///
/// Each plugin's decisions are a ``PluginLifecycle``; this actor holds them and runs one loop per plugin:
/// launch, wait for the process to end, ask the lifecycle what next. See ``PluginSpec`` for what a plugin
/// gets in its environment.
actor DriverSupervisor {
    struct Plugin {
        var spec: PluginSpec
        var lifecycle: PluginLifecycle
        var pid: Int32 = 0
        var lastExit = ""
        var message = ""
        let wakes: AsyncStream<Void>
        let wake: AsyncStream<Void>.Continuation
    }

    /// What a plugin's loop does next.
    enum Step {
        case launch(PluginSpec, token: String)
        /// Wait until the deadline (nil: until a restart by hand), or a restart by hand.
        case wait(until: ContinuousClock.Instant?)
        case stop
    }

    let policy: SupervisionPolicy
    let tokens: LaunchTokens
    let metrics: HubMetrics
    let logger: Logger
    private var plugins: [String: Plugin] = [:]
    let order: [String]
    private let shutdownSignal = AsyncStream<Void>.makeStream()

    init(specs: [PluginSpec], policy: SupervisionPolicy, tokens: LaunchTokens, metrics: HubMetrics, logger: Logger) {
        self.policy = policy
        self.tokens = tokens
        self.metrics = metrics
        self.logger = logger
        order = specs.map(\.id)
        for spec in specs {
            let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            plugins[spec.id] = Plugin(spec: spec, lifecycle: PluginLifecycle(policy: policy), wakes: wakes, wake: wake)
        }
    }

    /// Whether `driver` is one of the supervised plugins.
    nonisolated func supervises(_ driver: String) -> Bool { order.contains(driver) }

    /// Runs every plugin, the n-th after n staggers, until ``shutdown()`` or cancellation; then stops them
    /// (SIGTERM, then SIGKILL after the grace period) and returns once they are gone.
    /// - Parameter hub: the address plugins connect to (`unix:/path` or `host:port`).
    func run(hub: String) async {
        await withTaskGroup(of: Void.self) { group in
            for (index, id) in order.enumerated() {
                group.addTask { await self.supervise(id, after: self.policy.stagger * index, hub: hub) }
            }
            var stops = shutdownSignal.stream.makeAsyncIterator()
            _ = await stops.next()  // shutdown() or cancellation
            for id in order { plugins[id]?.lifecycle.stop() }
            group.cancelAll()
        }
    }

    /// Stops every plugin and makes ``run(hub:)`` return once they have exited.
    nonisolated func shutdown() { shutdownSignal.continuation.finish() }

    private nonisolated func supervise(_ id: String, after delay: Duration, hub: String) async {
        guard (try? await Task.sleep(for: delay)) != nil else { return }
        guard let wakes = await plugins[id]?.wakes else { return }
        while !Task.isCancelled {
            switch await nextStep(id) {
            case .stop:
                return
            case .launch(let spec, let token):
                let exit = await launch(spec, token: token, hub: hub, wakes: wakes)
                tokens.revoke(token)
                await exited(id, exit)
            case .wait(let deadline):
                await waitForWake(wakes, until: deadline)
            }
        }
    }

    private func nextStep(_ id: String) -> Step {
        guard var plugin = plugins[id] else { return .stop }
        defer { plugins[id] = plugin }
        switch plugin.lifecycle.state {
        case .stopped:
            return .stop
        case .failed:
            return .wait(until: nil)
        case .backingOff(let until) where until > .now:
            return .wait(until: until)
        case .waiting, .backingOff, .running:
            plugin.lifecycle.launched(at: .now)
            metrics.setDriverFailed(id, false)
            return .launch(plugin.spec, token: tokens.issue(for: id))
        }
    }

    func started(_ id: String, pid: Int32) {
        plugins[id]?.pid = pid
        logger.info("hub.driver.started", metadata: ["driver.id": "\(id)", "driver.pid": "\(pid)"])
    }

    /// Whether a restart by hand asked the running process of `id` to stop.
    func isRestartRequested(_ id: String) -> Bool { plugins[id]?.lifecycle.isRestartRequested ?? false }

    private func exited(_ id: String, _ exit: String) {
        guard var plugin = plugins[id] else { return }
        defer { plugins[id] = plugin }
        plugin.pid = 0
        plugin.lastExit = exit
        switch plugin.lifecycle.exited(at: .now, random: .random(in: 0...1)) {
        case .stop:
            logger.info("hub.driver.stopped", metadata: ["driver.id": "\(id)", "driver.exit": "\(exit)"])
        case .restartNow:
            logger.info("hub.driver.restarting", metadata: ["driver.id": "\(id)", "driver.exit": "\(exit)"])
        case .restart(let delay):
            metrics.recordDriverRestart(id)
            logger.warning(
                "hub.driver.exited",
                metadata: ["driver.id": "\(id)", "driver.exit": "\(exit)", "retry.in": "\(delay)"])
        case .fail(let reason):
            plugin.message = reason
            metrics.setDriverFailed(id, true)
            logger.error(
                "hub.driver.failed", metadata: ["driver.id": "\(id)", "driver.exit": "\(exit)", "reason": "\(reason)"])
        }
    }

    /// Restarts a plugin by hand: stops it first if it runs; a failed one starts again.
    /// - Throws: ``HubError`` `.notFound` for a driver that is not supervised here.
    func restart(_ id: String) throws(HubError) {
        guard plugins[id] != nil else { throw HubError(.notFound, "the hub does not supervise driver '\(id)'") }
        plugins[id]!.lifecycle.restart()
        plugins[id]!.message = ""
        metrics.setDriverFailed(id, false)
        logger.notice("hub.driver.restart_requested", metadata: ["driver.id": "\(id)"])
        plugins[id]!.wake.yield()
    }

    /// The process side of each supervised plugin.
    func statuses() -> [String: SupervisedStatus] {
        let (now, wallNow) = (ContinuousClock.now, Date())
        return plugins.mapValues { plugin in
            var nextStart: Date?
            if case .backingOff(let until) = plugin.lifecycle.state {
                let wait = until - now
                nextStart = wallNow + Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
            }
            return SupervisedStatus(
                state: plugin.lifecycle.state, pid: plugin.pid, restarts: plugin.lifecycle.restarts,
                lastExit: plugin.lastExit, nextStart: nextStart, message: plugin.message)
        }
    }
}

/// What ListDrivers shows of a supervised plugin's process.
struct SupervisedStatus: Sendable {
    var state: PluginLifecycle.State
    var pid: Int32
    var restarts: Int
    var lastExit: String
    /// When a backing-off plugin starts again, on the wall clock.
    var nextStart: Date?
    var message: String
}

public import ServiceLifecycle

/// A service that calls `tick` every `interval` until the service group shuts down: a simulation's clock
/// (sensor drift, level transitions, session expiry).
public struct Periodic: Service {
    let interval: Duration
    let tick: @Sendable (ContinuousClock.Instant) async -> Void

    /// Calls `tick` with the time now, every `interval`.
    public init(every interval: Duration, _ tick: @escaping @Sendable (ContinuousClock.Instant) async -> Void) {
        self.interval = interval
        self.tick = tick
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            let clock = ContinuousClock()
            var next = clock.now
            while !Task.isCancelled {
                next = next.advanced(by: interval)
                try await clock.sleep(until: next)
                await tick(clock.now)
            }
        }
    }
}

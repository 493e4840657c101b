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

    /// Ticks until cancelled or, in a service group, until graceful shutdown; then returns without an error
    /// (a service that throws on shutdown would make its group fail and cancel the driver mid-goodbye).
    /// A tick that overruns the interval delays the next one instead of causing a burst to catch up.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            let clock = ContinuousClock()
            var next = clock.now
            while true {
                next = max(next.advanced(by: interval), clock.now)
                do { try await clock.sleep(until: next) } catch { return }
                await tick(clock.now)
            }
        }
    }
}

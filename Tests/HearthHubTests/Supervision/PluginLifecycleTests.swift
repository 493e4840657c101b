@testable import HearthHub
import HearthModel
import Testing

/// The supervision state machine, fed events with made-up times: no processes.
@Suite("Plugin lifecycle: backoff, crash limit, restart by hand, shutdown")
struct PluginLifecycleTests {
    static func policy() -> SupervisionPolicy {
        var policy = SupervisionPolicy()
        policy.backoff = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0)
        policy.maxCrashes = 4
        policy.crashWindow = .seconds(300)
        policy.healthyAfter = .seconds(60)
        return policy
    }

    let t0 = ContinuousClock.now

    @Test("crashes back off 1, 2, 4 s; the crash limit within the window marks it failed")
    func backoffThenFailed() {
        var life = PluginLifecycle(policy: Self.policy())
        var now = t0
        var actions: [PluginLifecycle.OnExit] = []
        for _ in 0..<4 {
            life.launched(at: now)
            now += .seconds(2)
            actions.append(life.exited(at: now, random: 0.5))
        }
        #expect(actions.prefix(3) == [.restart(after: .seconds(1)), .restart(after: .seconds(2)), .restart(after: .seconds(4))])
        guard case .fail = actions[3], case .failed = life.state else {
            Issue.record("expected failed, got \(actions[3]) / \(life.state)")
            return
        }
        #expect(life.restarts == 3)
    }

    @Test("the backoff is capped, and jitter only shortens it")
    func cappedAndJittered() {
        var policy = Self.policy()
        policy.maxCrashes = 100
        policy.backoff.jitter = 0.5
        var life = PluginLifecycle(policy: policy)
        var delays: [Duration] = []
        var now = t0
        for _ in 0..<8 {
            life.launched(at: now)
            now += .seconds(1)
            if case .restart(let delay) = life.exited(at: now, random: 1) { delays.append(delay) }
        }
        #expect(delays.last == .seconds(4), "cap 8 s, half of it taken off by random = 1")
        #expect(delays.allSatisfy { $0 <= .seconds(8) })
    }

    @Test("crashes older than the window are forgotten; a long healthy run starts the backoff over")
    func windowAndHealthyRuns() {
        var life = PluginLifecycle(policy: Self.policy())
        var now = t0
        for _ in 0..<3 {
            life.launched(at: now)
            now += .seconds(1)
            _ = life.exited(at: now, random: 0)
        }
        // Runs well for 10 minutes: the three old crashes leave the window and the backoff restarts at 1 s.
        life.launched(at: now)
        now += .seconds(600)
        #expect(life.exited(at: now, random: 0) == .restart(after: .seconds(1)))
        #expect(life.crashes.count == 1)
    }

    @Test("a restart by hand of a running plugin restarts it at once without counting a crash")
    func restartRunning() {
        var life = PluginLifecycle(policy: Self.policy())
        life.launched(at: t0)
        life.restart()
        #expect(life.isRestartRequested, "the running process must be stopped first")
        #expect(life.exited(at: t0 + .seconds(1), random: 0) == .restartNow)
        #expect(life.crashes.isEmpty && life.restarts == 0)
        #expect(life.state == .waiting)
    }

    @Test("a failed plugin restarted by hand is due at once with a clean slate")
    func restartFailed() {
        var life = PluginLifecycle(policy: Self.policy())
        var now = t0
        for _ in 0..<4 {
            life.launched(at: now)
            now += .milliseconds(10)
            _ = life.exited(at: now, random: 0)
        }
        life.restart()
        #expect(!life.isRestartRequested, "nothing runs: no process to stop")
        #expect(life.state == .waiting && life.crashes.isEmpty)
        life.launched(at: now)
        #expect(life.exited(at: now + .seconds(1), random: 0) == .restart(after: .seconds(1)))
    }

    @Test("once the hub stops, exits never restart anything")
    func stopped() {
        var life = PluginLifecycle(policy: Self.policy())
        life.launched(at: t0)
        life.stop()
        #expect(life.exited(at: t0 + .seconds(1), random: 0) == .stop)
        life.restart()
        #expect(!life.isRestartRequested && life.state == .stopped)
        life.launched(at: t0)
        #expect(life.state == .stopped)
    }
}

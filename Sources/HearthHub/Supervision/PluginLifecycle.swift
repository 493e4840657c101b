import HearthModel

/// The life of one supervised plugin as a state machine: what to do when it exits, when it is asked to
/// restart, when the hub stops. Time and randomness are arguments, so it is tested without processes.
///
/// ```
///            launched            exited (crash count < max)
///  waiting ──────────► running ─────────────────────────► backingOff ──(delay passed)──► waiting
///     ▲                  │  exited (crash count = max)                                     │
///     │                  └──────────────────────────► failed ──(restart by hand)───────────┘
///     │                                                                                     │
///     └─────────────────────────────────────────────────────────────────────────────────────┘
///  any state ──(hub stops)──► stopped
/// ```
struct PluginLifecycle: Sendable {
    enum State: Sendable, Equatable {
        /// Due to start now.
        case waiting
        case running(since: ContinuousClock.Instant)
        case backingOff(until: ContinuousClock.Instant)
        case failed(reason: String)
        case stopped
    }

    /// What the supervisor does after an exit.
    enum OnExit: Sendable, Equatable {
        /// Start again after the wait.
        case restart(after: Duration)
        /// Restart at once: it was stopped on purpose (restart by hand).
        case restartNow
        /// Leave it down until restarted by hand.
        case fail(reason: String)
        /// The hub is stopping.
        case stop
    }

    let policy: SupervisionPolicy
    private(set) var state: State = .waiting
    /// Exits within the crash window, oldest first.
    private(set) var crashes: [ContinuousClock.Instant] = []
    /// Restarts after crashes (for metrics and ListDrivers).
    private(set) var restarts = 0
    private var attempt = 0
    /// Set by a restart by hand of a running plugin, until its process exits.
    private(set) var isRestartRequested = false

    init(policy: SupervisionPolicy) { self.policy = policy }

    mutating func launched(at now: ContinuousClock.Instant) {
        guard state != .stopped else { return }
        state = .running(since: now)
    }

    /// The process ended (or could not start). `random` is uniform in 0...1 for the backoff's jitter.
    mutating func exited(at now: ContinuousClock.Instant, random: Double) -> OnExit {
        guard state != .stopped else { return .stop }
        if isRestartRequested {
            isRestartRequested = false
            state = .waiting
            return .restartNow
        }
        if case .running(let since) = state, now - since >= policy.healthyAfter { attempt = 0 }
        let window = policy.crashWindow
        crashes.removeAll { now - $0 >= window }
        crashes.append(now)
        if crashes.count >= policy.maxCrashes {
            let reason = "exited \(crashes.count) times within \(policy.crashWindow); restart it by hand"
            state = .failed(reason: reason)
            return .fail(reason: reason)
        }
        let delay = policy.backoff.delay(attempt: attempt, random: random)
        attempt += 1
        restarts += 1
        state = .backingOff(until: now + delay)
        return .restart(after: delay)
    }

    /// A restart by hand. A running plugin is marked so that its coming exit (the supervisor stops it)
    /// answers ``OnExit/restartNow`` (see ``isRestartRequested``); any other is due to start now. Either
    /// way its crash count starts over.
    mutating func restart() {
        switch state {
        case .stopped:
            return
        case .running:
            isRestartRequested = true
        case .waiting, .backingOff, .failed:
            state = .waiting
        }
        crashes = []
        attempt = 0
    }

    /// The hub is stopping: nothing starts again.
    mutating func stop() { state = .stopped }
}

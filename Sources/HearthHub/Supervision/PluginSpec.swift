public import HearthModel

/// A driver plugin the hub starts and keeps running: one process per device family.
///
/// The hub starts it with `HEARTH_HUB` (its own address), `HEARTH_DRIVER_TOKEN` (a token made for this
/// launch only, bound to ``id``), `HEARTH_DRIVER_ID` and `HEARTH_SUPERVISED=1` in the environment on top of
/// the hub's own environment and ``environment``, with its standard input an open pipe that closes when the
/// hub goes away.
public struct PluginSpec: Sendable, Hashable {
    /// The driver id: device ids of the plugin are `<id>/<local id>`.
    public var id: String
    /// Path of the executable.
    public var executable: String
    /// Arguments after the executable's name.
    public var arguments: [String]
    /// Extra environment variables.
    public var environment: [String: String]

    /// A plugin with its command line.
    public init(id: String, executable: String, arguments: [String] = [], environment: [String: String] = [:]) {
        self.id = id
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
    }
}

/// How the hub supervises its plugins; each default is documented beside it.
public struct SupervisionPolicy: Sendable, Hashable {
    /// The wait between starting one plugin and the next, so a hub start does not start every driver
    /// at once. Default 250 ms.
    public var stagger: Duration = .milliseconds(250)
    /// Waits before restarting a crashed plugin: 1 s doubling to 60 s, half of it random. A plugin that ran
    /// for ``healthyAfter`` starts over at 1 s.
    public var backoff = Backoff(initial: .seconds(1), maximum: .seconds(60), jitter: 0.5)
    /// How long a plugin must run for its next crash to count as a first one again. Default 60 s.
    public var healthyAfter: Duration = .seconds(60)
    /// A plugin that exits this many times within ``crashWindow`` is marked failed and left down until
    /// restarted by hand. Default 5.
    public var maxCrashes = 5
    /// See ``maxCrashes``. Default 5 minutes.
    public var crashWindow: Duration = .seconds(300)
    /// How long a plugin has after SIGTERM (hub shutdown, restart by hand) before SIGKILL. Default 5 s.
    public var stopGrace: Duration = .seconds(5)

    /// The defaults.
    public static var defaults: SupervisionPolicy { SupervisionPolicy() }

    public init() {}
}

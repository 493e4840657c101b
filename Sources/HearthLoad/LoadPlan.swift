import HearthSDK

/// What a load run does: how many devices, drivers and clients, which rates, and for how long.
public struct LoadPlan: Codable, Sendable, Hashable {
    /// The preset's name (or `custom`).
    public var name: String
    /// Devices in all, split evenly over the drivers.
    public var devices: Int
    /// Driver processes.
    public var drivers: Int
    /// Watching clients by kind (their order in the report).
    public var clients: [ClientKind: Int]
    /// Devices each `devices` or `types` client watches.
    public var devicesPerPickClient: Int
    /// Seconds each rate is driven.
    public var seconds: Double
    /// The first rate (reports per second, all drivers together).
    public var startRate: Double
    /// Rates to run as given; when empty, the search runs instead: double from ``startRate`` until p99
    /// reaches ``latencyTarget`` (or anything is lost), then halve the interval ``refineSteps`` times.
    public var rates: [Double]
    /// The highest rate the search tries.
    public var maxRate: Double
    /// Bisection steps after the doubling.
    public var refineSteps: Int
    /// The p99 a rate must stay under to pass, in milliseconds.
    public var latencyTarget: Double
    /// Commands per second sent by the clients in the command phase (0: none).
    public var commandRate: Double
    /// Seconds of the command phase.
    public var commandSeconds: Double
    /// Whether a phase with one extra `batched` client stalled runs after the rates.
    public var stall: Bool
    /// Seconds to wait for every client to reach every device's last report after a phase.
    public var settleSeconds: Double
    /// Seconds to wait for every device to register.
    public var registerTimeout: Double
    /// How many clients list the home at once when they join (the rest wait their turn).
    public var joinConcurrency = 4
    /// Whether a separate client process measures one `list()` and the cache's memory per device.
    public var measureClientFootprint = true
    /// The `Home.Configuration.updateInterval` of the HearthSDK clients, in milliseconds (0: every change at
    /// once, the SDK's default).
    public var updateIntervalMs = 0
    /// The longest ``updateIntervalMs`` (HearthSDK's limit, the hub's).
    public static let maxUpdateIntervalMs = Int(Home.Configuration.maxUpdateInterval / .milliseconds(1))

    /// The presets by name.
    public static let presets: [String: LoadPlan] = [
        "small": LoadPlan(
            name: "small", devices: 100, drivers: 2, clients: [.batched: 1, .stream: 1, .devices: 1, .types: 1],
            devicesPerPickClient: 5, seconds: 2, startRate: 100, rates: [100, 400], maxRate: 400, refineSteps: 0,
            latencyTarget: 50, commandRate: 20, commandSeconds: 2, stall: true, settleSeconds: 20, registerTimeout: 60),
        "home": LoadPlan(
            name: "home", devices: 1000, drivers: 4, clients: [.batched: 2, .stream: 2, .devices: 2, .types: 2],
            devicesPerPickClient: 10, seconds: 5, startRate: 250, rates: [], maxRate: 64000, refineSteps: 2,
            latencyTarget: 50, commandRate: 50, commandSeconds: 5, stall: true, settleSeconds: 30, registerTimeout: 120),
        "building": LoadPlan(
            name: "building", devices: 100_000, drivers: 50, clients: [.batched: 5, .stream: 5, .devices: 5, .types: 5],
            devicesPerPickClient: 20, seconds: 10, startRate: 1000, rates: [], maxRate: 64000, refineSteps: 1,
            latencyTarget: 50, commandRate: 100, commandSeconds: 10, stall: true, settleSeconds: 120, registerTimeout: 1200),
        // The SDK benchmark (tools/Benchmarks/sdk.sh): one batched and one stream client at 10k reports/s.
        "sdk-10k": LoadPlan(
            name: "sdk-10k", devices: 10_000, drivers: 4, clients: [.batched: 1, .stream: 1], devicesPerPickClient: 0,
            seconds: 10, startRate: 10_000, rates: [10_000], maxRate: 10_000, refineSteps: 0, latencyTarget: 50,
            commandRate: 0, commandSeconds: 0, stall: false, settleSeconds: 60, registerTimeout: 300),
        "sdk-100k": LoadPlan(
            name: "sdk-100k", devices: 100_000, drivers: 10, clients: [.batched: 1, .stream: 1], devicesPerPickClient: 0,
            seconds: 10, startRate: 10_000, rates: [10_000], maxRate: 10_000, refineSteps: 0, latencyTarget: 50,
            commandRate: 0, commandSeconds: 0, stall: false, settleSeconds: 120, registerTimeout: 1200),
    ]

    /// Every client kind with its count, in a stable order.
    public var clientList: [(kind: ClientKind, index: Int)] {
        ClientKind.allCases.flatMap { kind in (0..<(clients[kind] ?? 0)).map { (kind, $0 + 1) } }
    }

    /// How many devices driver `index` holds (the remainder goes to the first drivers).
    public func devices(ofDriver index: Int) -> Int {
        devices / drivers + (index < devices % drivers ? 1 : 0)
    }
}

/// The rate search: which rate to run next given the results so far.
public struct RateSearch: Sendable {
    let plan: LoadPlan
    /// Rates run so far, with whether each passed.
    public private(set) var results: [(rate: Double, passed: Bool)] = []

    public init(plan: LoadPlan) { self.plan = plan }

    /// Records a rate's outcome.
    public mutating func record(_ rate: Double, passed: Bool) { results.append((rate, passed)) }

    /// The highest rate that passed.
    public var bestRate: Double? { results.filter(\.passed).map(\.rate).max() }

    /// The next rate to run, or nil when the search is over.
    public var next: Double? {
        if !plan.rates.isEmpty { return results.count < plan.rates.count ? plan.rates[results.count] : nil }
        guard let last = results.last else { return plan.startRate }
        let failed = results.filter { !$0.passed }.map(\.rate).min()
        guard let failed else {
            let doubled = last.rate * 2
            return doubled <= plan.maxRate ? doubled : nil
        }
        // Bisect between the best pass below the first failure and that failure.
        let refinements = results.count - (results.firstIndex { !$0.passed }! + 1)
        guard refinements < plan.refineSteps else { return nil }
        let below = results.filter { $0.passed && $0.rate < failed }.map(\.rate).max() ?? 0
        let middle = ((below + failed) / 2).rounded()
        return middle > below && middle < failed ? middle : nil
    }
}

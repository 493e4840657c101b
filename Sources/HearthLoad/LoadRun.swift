public import Foundation
import HearthSDK
import HearthTesting
public import Logging

/// One load run: a hub on a temporary directory, the driver processes, the clients, the phases, and the
/// report. ``run()`` cleans up every process it started, whatever happens.
public final class LoadRun: Sendable {
    /// Where the `hearth-hub` and `hearth-load` executables are.
    public struct Executables: Sendable {
        public var hub: URL
        public var load: URL

        public init(hub: URL, load: URL) {
            self.hub = hub
            self.load = load
        }
    }

    static let clientToken = "load-client"
    let plan: LoadPlan
    let executables: Executables
    let directory: URL
    let logger: Logger
    /// The hub's Unix socket, which the drivers use.
    var socket: URL { directory.appendingPathComponent("hub.sock") }

    public init(plan: LoadPlan, executables: Executables, logger: Logger) {
        self.plan = plan
        self.executables = executables
        self.logger = logger
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-load-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    }

    /// The processes and clients of a run, once started.
    struct Fleet: Sendable {
        var hub: ChildProcess
        var address: String
        var drivers: [ChildProcess] = []
        var clients: [LoadClient] = []
        var stalled: LoadClient?
        /// Each driver's devices, by hub id, in its report order.
        var driverDevices: [[String]] = []
        /// The devices with an OnOff trait (what the command phase toggles).
        var onOffDevices: [String] = []

        /// The measured clients and the stalled one.
        var allClients: [LoadClient] { clients + [stalled].compactMap { $0 } }
    }

    /// Runs the plan and returns what it measured.
    public func run() async throws -> LoadReport {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let hubStart = LoadProbe.now()
        var fleet = try await startHub()
        let hubStartSeconds = seconds(since: hubStart)
        do {
            let report = try await measure(&fleet, hubStartSeconds: hubStartSeconds)
            await stop(fleet)
            return report
        } catch {
            await stop(fleet)
            throw error
        }
    }

    private func measure(_ fleet: inout Fleet, hubStartSeconds: Double) async throws -> LoadReport {
        let registerSeconds = try await startDrivers(&fleet)
        logger.info("load.registered", metadata: ["seconds": "\(registerSeconds)"])
        let footprint = plan.measureClientFootprint ? try await measureFootprint(fleet) : nil
        let peerList = plan.measureClientFootprint ? try await measurePeerList(fleet) : nil
        try await startClients(&fleet)
        var report = LoadReport(
            plan: plan, cores: ProcessInfo.processInfo.activeProcessorCount, hubStartSeconds: hubStartSeconds,
            registerSeconds: registerSeconds,
            firstListSeconds: Dictionary(
                uniqueKeysWithValues: fleet.allClients.map { ($0.name, $0.firstList) }),
            phases: [], commands: nil, maxSustainedRate: nil, hubPeakMemoryMiB: 0, clientFailures: [:],
            clientFootprint: footprint, peerListSeconds: peerList)
        var search = RateSearch(plan: plan)
        while let rate = search.next {
            let phase = try await ratePhase(fleet, rate: rate, stall: nil)
            report.phases.append(phase)
            search.record(rate, passed: phase.passed)
            logger.info("load.phase", metadata: ["rate": "\(rate)", "p99.ms": "\(phase.latency.p99)", "passed": "\(phase.passed)"])
        }
        report.maxSustainedRate = search.bestRate
        if plan.stall, let stalled = fleet.stalled {
            let rate = search.bestRate ?? plan.startRate
            report.phases.append(try await ratePhase(fleet, rate: rate, stall: stalled))
        }
        if plan.commandRate > 0 { report.commands = await commandPhase(fleet) }
        report.hubPeakMemoryMiB = Double(ProcessStats.of(fleet.hub.pid)?.peakBytes ?? 0) / 1_048_576
        for client in fleet.allClients {
            if let failure = client.failed { report.clientFailures[client.name] = failure }
        }
        return report
    }

    private func startHub() async throws -> Fleet {
        let config = directory.appendingPathComponent("hub.json")
        let drivers = (1...plan.drivers).map { ["id": "load-\($0)", "token": "load-driver-\($0)"] }
        var object: [String: Any] = [
            "listen": "127.0.0.1:0", "metrics_listen": "127.0.0.1:0", "socket": socket.path, "data_dir": directory.appendingPathComponent("data").path,
            "structures": [["id": "home", "name": "Home"]],
            "clients": [["token": Self.clientToken, "user": "load", "role": "admin"]], "drivers": drivers,
        ]
        // `HEARTH_LOAD_HUB_EVENT_LOOPS=N` sets the hub's `event_loops` (default: one per allowed CPU).
        if let loops = ProcessInfo.processInfo.environment["HEARTH_LOAD_HUB_EVENT_LOOPS"].flatMap(Int.init) {
            object["event_loops"] = loops
        }
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(to: config)
        let hub = try ChildProcess(executables.hub, ["--config", config.path, "--log-level", "warning"])
        if let metrics = await hub.line(timeout: .seconds(60), where: { $0.hasPrefix("METRICS ") }) {
            logger.info("load.hub.metrics", metadata: ["address": "\(metrics.dropFirst(8))"])
        }
        guard let line = await hub.line(timeout: .seconds(60), where: { $0.hasPrefix("LISTENING ") }),
            let tcp = line.split(separator: " ").first(where: { $0.contains("IPv4") || $0.contains("IPv6") }),
            let colon = tcp.lastIndex(of: ":"), let port = Int(tcp[tcp.index(after: colon)...])
        else {
            await hub.stop()
            throw LoadError("the hub did not start (no LISTENING line with a TCP address)")
        }
        // Clients reach the hub over loopback TCP, as a client on another machine would, unless
        // `HEARTH_LOAD_CLIENTS_UNIX=1` sends them through the hub's Unix socket (a figure of its own, for apps
        // on the hub's machine; the drivers always use the socket).
        let unix = ProcessInfo.processInfo.environment["HEARTH_LOAD_CLIENTS_UNIX"] == "1"
        return Fleet(hub: hub, address: unix ? "unix:\(socket.path)" : "127.0.0.1:\(port)")
    }

    /// Starts the drivers; returns the seconds until the hub has every device online.
    private func startDrivers(_ fleet: inout Fleet) async throws -> Double {
        let observer = try Home.connect(to: fleet.address, token: Self.clientToken)
        defer { observer.close() }
        let start = LoadProbe.now()
        for index in 1...plan.drivers {
            let count = plan.devices(ofDriver: index - 1)
            fleet.drivers.append(
                try ChildProcess(
                    executables.load,
                    ["driver", "--hub", "unix:\(socket.path)", "--token", "load-driver-\(index)", "--index", "\(index)",
                     "--devices", "\(count)"]))
            let devices = LoadMix.devices(count: count, driver: index)
            fleet.driverDevices.append(devices.map { "load-\(index)/\($0.id)" })
            fleet.onOffDevices += devices.filter(\.hasOnOff).map { "load-\(index)/\($0.id)" }
        }
        let deadline = ContinuousClock.now + .seconds(plan.registerTimeout)
        while ContinuousClock.now < deadline {
            let devices = try await observer.devices().list()
            if devices.count == plan.devices, devices.allSatisfy({ $0.sourceConnectivity.connectivityState == .online }) {
                return seconds(since: start)
            }
            if let dead = fleet.drivers.firstIndex(where: { !$0.isRunning }) {
                throw LoadError("driver load-\(dead + 1) exited before its devices registered")
            }
            try await Task.sleep(for: .milliseconds(plan.devices > 10_000 ? 1000 : 100))
        }
        throw LoadError("the devices did not all come online within \(Int(plan.registerTimeout)) s")
    }

    /// A fresh `hearth-load sdk-client` process lists the home alone and reports its footprint.
    private func measureFootprint(_ fleet: Fleet) async throws -> ClientFootprint {
        let outcome = try await ChildProcessIO.run(
            executables.load, ["sdk-client", "--address", fleet.address, "--token", Self.clientToken],
            timeout: .seconds(plan.registerTimeout))
        let line = outcome.output.split(separator: "\n").first { $0.hasPrefix("FOOTPRINT ") }
        guard outcome.status == 0, let line, let footprint = ClientFootprint(line: String(line)), footprint.devices == plan.devices
        else {
            throw LoadError("the footprint client did not list every device: \(outcome.output.suffix(500))")
        }
        return footprint
    }

    /// Times the peer listing command of `HEARTH_LOAD_PEER_LIST` (given `watch --until-synced --target ADDRESS
    /// --token TOKEN --timeout 600`, its output discarded); nil without one.
    private func measurePeerList(_ fleet: Fleet) async throws -> Double? {
        guard let command = ProcessInfo.processInfo.environment["HEARTH_LOAD_PEER_LIST"], !command.isEmpty else { return nil }
        let start = LoadProbe.now()
        let outcome = try await ChildProcessIO.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "\(command) watch --until-synced --target \(fleet.address) --token \(Self.clientToken) --timeout 600 > /dev/null"],
            timeout: .seconds(plan.registerTimeout))
        guard let status = outcome.status else {
            throw LoadError("the peer list command did not finish within \(Int(plan.registerTimeout)) s: \(command)")
        }
        guard status == 0 else { throw LoadError("the peer list command failed (\(status)): \(command)\n\(outcome.output)") }
        return seconds(since: start)
    }

    private func startClients(_ fleet: inout Fleet) async throws {
        let address = fleet.address
        let plan = plan
        // At most `joinConcurrency` clients list the home at once: 21 clients each taking a 100k-device snapshot
        // together made the slowest wait past its sync timeout on 2 cores.
        var joins = plan.clientList.map { (name: "\($0.kind.rawValue)-\($0.index)", kind: $0.kind) }
        if plan.stall { joins.append((name: "stalled", kind: .batched)) }
        let pick = plan.devicesPerPickClient
        let clients = try await withThrowingTaskGroup(of: LoadClient.self) { group in
            var joined: [LoadClient] = []
            for (offset, join) in joins.enumerated() {
                if offset >= plan.joinConcurrency, let client = try await group.next() { joined.append(client) }
                group.addTask {
                    try await LoadClient(
                        name: join.name, kind: join.kind, address: address, token: Self.clientToken, pick: pick,
                        updateInterval: .milliseconds(plan.updateIntervalMs))
                }
            }
            for try await client in group { joined.append(client) }
            return joined
        }
        for client in clients { client.start() }
        fleet.clients = clients.filter { $0.name != "stalled" }.sorted { $0.name < $1.name }
        fleet.stalled = clients.first { $0.name == "stalled" }
        // Every client has a baseline of every device it watches before anything is measured.
        let all = fleet.allClients
        let deadline = ContinuousClock.now + .seconds(plan.settleSeconds)
        while !all.allSatisfy({ $0.hasBaseline(devices: plan.devices) }) {
            guard ContinuousClock.now < deadline else { throw LoadError("the clients did not all see every device") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func stop(_ fleet: Fleet) async {
        for client in fleet.allClients { client.close() }
        // A driver stops at the end of its standard input, which stop(wait:) closes first.
        await withTaskGroup(of: Void.self) { group in
            for driver in fleet.drivers { group.addTask { await driver.stop(wait: .seconds(5)) } }
        }
        await fleet.hub.stop()
    }

    func seconds(since start: UInt64) -> Double { Double(LoadProbe.now() - start) / 1e9 }
}

/// Why a load run could not go on.
public struct LoadError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

import Foundation
public import HearthModel
public import HearthWire
public import Logging
import ServiceLifecycle
import Synchronization

/// A driver process's connection to the hub, its devices, and its command handlers.
///
/// ```swift
/// let driver = Driver(configuration: try .fromEnvironment(driverID: "lights"))
/// let lamp = driver.add(DeviceDescription(id: "lamp-1", name: "Lamp", endpoints: [
///     EndpointDescription(OnOffLightDeviceType.self, traits: [
///         .trait(Matter.IdentifyTrait.self) { $0.identifyTime = 0 },
///         .trait(Matter.OnOffTrait.self) { $0.onOff = false },
///     ]),
/// ]))
/// driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in
///     try context.device.report(Matter.OnOffTrait.self, endpoint: context.endpoint) { $0.onOff = true }
/// }
/// try await driver.run()   // or DriverMain.run(driver) for SIGTERM handling
/// ```
///
/// ``run()`` connects, says Hello, announces every device with its current values, then sends reports,
/// events and command results as they come and runs handlers for the commands and writes the hub routes
/// here. When the connection is lost it reconnects with jittered exponential backoff and announces again
/// (devices and values as they are then). It stops when cancelled, on ``stop()``, or, under ServiceLifecycle,
/// on graceful shutdown, after sending what is queued.
public final class Driver: Sendable {
    /// Connection and batching settings; each default is documented beside it.
    public struct Configuration: Sendable {
        /// The hub: `.unix(path:)` for a local hub's socket, or `.tcp(host:port:)`.
        public var hub: WireClient.Target
        /// The driver's token (it names the driver to the hub).
        public var token: String
        /// The driver id the token is bound to; empty: whatever the token says.
        public var driverID: String
        /// Sent in Hello, logged by the hub.
        public var version: String = "1"
        /// Waits between reconnection attempts.
        public var reconnect = Backoff()
        /// Trait reports per Report message at most. Default 1000.
        public var maxTraitsPerReport = 1000
        /// Devices per Announce message at most. Default 200.
        public var devicesPerAnnounce = 200
        /// Under a steady stream of reports, how long they gather after the previous write so that one
        /// write carries many (coalesced per trait). A report after a quiet moment of at least this long
        /// goes out at once; a command result or stopping never starts a wait, and a result queued during
        /// one ends it. Zero writes as soon as anything waits.
        /// Default 2 ms: every write costs the driver and the hub a system call and a wake-up each. Against
        /// 1 ms it took about 15 % off the driver's CPU per report at 20,000 reports/s, and a quarter off the
        /// hub's at 10,000/s in the load test, for up to 1 ms more delay on a report while reports keep
        /// coming (Docs/Benchmarks.md).
        public var batchWindow: Duration = .milliseconds(2)
        /// How long a handler may run when the hub sent no deadline. Default 30 s.
        public var defaultHandlerTimeout: Duration = .seconds(30)
        /// Where command and write handlers run. Default ``HandlerExecution/eventLoop``.
        public var handlerExecution = HandlerExecution.eventLoop
        /// How long the hub has to welcome a new connection before the driver gives up on it and
        /// reconnects. Default 10 s.
        public var welcomeTimeout: Duration = .seconds(10)
        /// How long ``Driver/stop()`` waits for queued messages to go out and the hub to close the stream
        /// before it drops the connection. Default 5 s.
        public var stopGrace: Duration = .seconds(5)
        /// Vendor trait schemas the devices use; sent with the first announcement of each connection.
        public var vendorTraitSchemas: [TraitSchema] = []
        /// TLS to a hub on TCP (a driver on another machine); with ``WireClient/TLS/certificateChain`` and
        /// ``WireClient/TLS/privateKey`` set, the driver presents a client certificate (mutual TLS). Default nil:
        /// plaintext. Ignored for a Unix socket.
        public var tls: WireClient.TLS?

        /// Where the driver's command and write handlers run.
        public enum HandlerExecution: Sendable, Hashable {
            /// On the thread that owns the connection to the hub: a command's arrival, its handler, its
            /// deadline and the result's write wake no other thread (measured: the driver's share of a
            /// command's round trip). A handler that blocks its thread or computes for long holds up the
            /// connection's reads and writes meanwhile; give such work a task of its own, or choose
            /// ``globalExecutor``.
            case eventLoop
            /// On Swift's global concurrent executor, away from the connection's thread.
            case globalExecutor
        }

        public init(hub: WireClient.Target, token: String, driverID: String = "") {
            self.hub = hub
            self.token = token
            self.driverID = driverID
        }
    }

    /// Where the driver is in its connection life.
    public enum ConnectionState: Sendable, Hashable {
        case connecting
        /// Connected and announced, to the hub with this epoch.
        case connected(epoch: String)
        /// Lost; the next attempt is after the wait.
        case waiting(attempt: Int)
        case stopped
    }

    public let configuration: Configuration
    let logger: Logger
    let store: DeviceStore
    let handlers = HandlerTable()
    let client: WireClient
    let metrics: DriverMetrics
    private let connectionState = Mutex(ConnectionState.connecting)
    let stopping = Mutex(false)
    /// Finished by ``stop()``.
    private let stopSignal = AsyncStream<Void>.makeStream()

    /// Creates a driver; nothing connects until ``run()``.
    public init(configuration: Configuration, logger: Logger = Logger(label: "hearth.driver")) {
        self.configuration = configuration
        self.logger = logger
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        store = DeviceStore(
            vendorSchemas: configuration.vendorTraitSchemas.compactMap {
                (try? encoder.encode($0)).map { String(decoding: $0, as: UTF8.self) }
            })
        var wire = WireClient.Configuration()
        wire.tls = configuration.tls
        client = WireClient(target: configuration.hub, configuration: wire)
        metrics = DriverMetrics(driverID: configuration.driverID)
    }

    /// The connection's state now.
    public var connection: ConnectionState { connectionState.withLock { $0 } }

    func setConnection(_ state: ConnectionState) { connectionState.withLock { $0 = state } }

    /// Adds a device (or replaces one with the same id); announced at once when connected.
    @discardableResult
    public func add(_ device: DeviceDescription) -> DriverDevice {
        DriverDevice(id: device.id, store: store, slot: store.add(device))
    }

    /// A device added earlier.
    public func device(_ id: String) -> DriverDevice? {
        store.slot(of: id).map { DriverDevice(id: id, store: store, slot: $0) }
    }

    /// Removes devices for good: the hub deletes them (with the user's name and room for them).
    public func remove(_ ids: [String]) { store.remove(ids) }

    /// Connects and serves until cancelled or stopped; reconnects when the connection is lost.
    /// - Throws: ``DriverError/refused(_:)`` when the hub refuses the token, ``DriverError/replaced(_:)``
    ///   when another copy of the driver took over.
    public func run() async throws {
        defer {
            setConnection(.stopped)
            client.close()
        }
        // Under ServiceLifecycle (DriverMain, or any service group) graceful shutdown is a stop(): queued
        // messages go out and the connection closes. Outside a group this handler never fires.
        try await withGracefulShutdownHandler {
            try await runUntilStopped()
        } onGracefulShutdown: {
            self.stop()
        }
    }

    private func runUntilStopped() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.connectLoop() }
            group.addTask {
                // After stop(), the session has `stopGrace` to flush and close; then it is cancelled.
                for await _ in self.stopSignal.stream {}
                if Task.isCancelled { return }
                try? await Task.sleep(for: self.configuration.stopGrace)
            }
            // Whichever ends first (the loop, or the grace after stop()) ends the other.
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    private func connectLoop() async throws {
        var attempt = 0
        while !Task.isCancelled, !stopping.withLock({ $0 }) {
            setConnection(.connecting)
            let outcome = await runSession()
            switch outcome {
            case .stopped: return
            case .fatal(let error): throw error
            case .lost(let error, let established):
                if established { attempt = 0 }
                if stopping.withLock({ $0 }) { return }
                let wait = configuration.reconnect.delay(attempt: attempt, random: .random(in: 0...1))
                logger.warning(
                    "driver.connection.lost",
                    metadata: ["error": "\(error)", "retry.in": "\(wait)", "retry.attempt": "\(attempt + 1)"])
                setConnection(.waiting(attempt: attempt + 1))
                attempt += 1
                try? await Task.sleep(for: wait)
            }
        }
    }

    /// Sends what is queued, ends the connection, and makes ``run()`` return (within
    /// ``Configuration/stopGrace`` even when the hub does not answer). A stopped driver stays stopped.
    public func stop() {
        stopping.withLock { $0 = true }
        store.windowAlarm.ring()
        store.ring()
        stopSignal.continuation.finish()
    }
}

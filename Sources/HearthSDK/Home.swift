public import HearthModel
import HearthProto
public import HearthWire
public import OpenCombineShim
import Synchronization

/// The connection to one hub and its local cache; every query and publisher is a view of that cache.
///
/// ```swift
/// let home = try Home.connect(to: "127.0.0.1:7070", token: "demo-admin")
/// defer { home.close() }
/// for device in try await home.devices().list() { print(device.name, device.sourceConnectivity) }
/// ```
///
/// One watch stream feeds the cache. When the connection is lost it reconnects with jittered backoff and
/// resumes from the last revision it applied; when the hub answers that it must re-list, the new snapshot is
/// compared with the cache so that subscribers see only what really changed.
public final class Home: Sendable {
    /// Timeouts and retries; each default is documented beside it.
    public struct Configuration: Sendable {
        /// How long ``Query/list()`` waits for the first snapshot. Default 30 s.
        public var syncTimeout: Duration = .seconds(30)
        /// Deadline of each mutation, command and write. Default 30 s.
        public var callTimeout: Duration = .seconds(30)
        /// Waits between reconnection attempts of the watch stream. Default 200 ms doubling to 10 s.
        public var reconnect = Backoff(initial: .milliseconds(200), maximum: .seconds(10))
        /// Events an event subscriber may fall behind before it is ended with `resourceExhausted`.
        /// Default 10 000.
        public var eventBacklog = 10_000
        /// TLS to a hub whose TCP listener serves it (`"tls"` in the hub's config). Default nil: plaintext.
        /// Ignored for a `unix:` address, which is always plaintext.
        ///
        /// ```swift
        /// var configuration = Home.Configuration()
        /// configuration.tls = WireClient.TLS(trustRoots: .file("hub-cert.pem"))  // the hub's self-signed certificate
        /// let home = try Home.connect(to: "hub.local:7070", token: token, configuration: configuration)
        /// ```
        public var tls: WireClient.TLS?
        /// The least time between two updates the hub sends this home. Default zero: each change is sent, and
        /// applied, as soon as the hub has committed it.
        ///
        /// A program that needs no sub-millisecond freshness (a dashboard, a ``Query/batched()`` view of the
        /// whole home) can set a few milliseconds: a change that comes sooner than this after the previous
        /// update then waits on the hub, gathered with those that follow, and arrives with them in one
        /// update. That costs the hub, the connection and this library much less per change when many
        /// changes come. The first snapshot is not delayed. At most one second
        /// (``Home/connect(to:token:configuration:)`` refuses more).
        ///
        /// ```swift
        /// var configuration = Home.Configuration()
        /// configuration.updateInterval = .milliseconds(5)
        /// let home = try Home.connect(to: "127.0.0.1:7070", token: token, configuration: configuration)
        /// ```
        public var updateInterval: Duration = .zero
        /// The longest ``updateInterval`` a hub accepts: one second.
        public static let maxUpdateInterval = Duration.milliseconds(Int(Hearth_V1_WatchRequest.maxUpdateIntervalMs))

        public init() {}
    }

    /// The settings the home was connected with.
    public let configuration: Configuration
    let client: WireClient
    let token: String
    let store = HomeStore()
    private let watcher = Mutex<Task<Void, Never>?>(nil)
    /// Set by ``close()``: calls from then on are `cancelled`, not whatever the closed connection answers.
    private let closed = Atomic(false)

    private init(target: WireClient.Target, token: String, configuration: Configuration) {
        var wire = WireClient.Configuration()
        wire.tls = configuration.tls
        client = WireClient(target: target, configuration: wire)
        self.token = token
        self.configuration = configuration
    }

    /// Connects to a hub and starts filling the cache; returns at once (``Query/list()`` waits for the
    /// first snapshot).
    /// - Parameters:
    ///   - address: `host:port`, `[v6]:port`, or `unix:/path/to/hub.sock`.
    ///   - token: a client token from the hub's config.
    /// - Throws: ``HomeError`` `invalidArgument` for a malformed address or an ``Configuration/updateInterval``
    ///   out of range.
    public static func connect(to address: String, token: String, configuration: Configuration = Configuration())
        throws(HomeError) -> Home
    {
        guard let target = WireClient.Target(address: address) else {
            throw HomeError(.invalidArgument, "the hub address must be host:port or unix:/path, got '\(address)'")
        }
        guard configuration.updateInterval >= .zero, configuration.updateInterval <= Configuration.maxUpdateInterval else {
            throw HomeError(
                .invalidArgument, "updateInterval must be between zero and \(Configuration.maxUpdateInterval), got \(configuration.updateInterval)")
        }
        let home = Home(target: target, token: token, configuration: configuration)
        // The watch runs for the home's life; close() ends it.
        let task = Task { await home.watchLoop() }
        home.watcher.withLock { $0 = task }
        return home
    }

    /// Stops the watch stream and the connection; publishers finish, later calls fail with `cancelled`.
    public func close() {
        closed.store(true, ordering: .sequentiallyConsistent)
        watcher.withLock { $0 }?.cancel()
        store.end(nil)
        client.close()
        store.forget()  // the cached devices' public values hold the home: let both go
    }

    /// The public value of a cached device, built at most once per change of it and shared by every view.
    func device(for cached: CachedDevice) -> HomeDevice { cached.device(home: self) }

    deinit { watcher.withLock { $0 }?.cancel() }

    /// The structures the token may see.
    public func structures() -> Query<Structure> { Query(home: self) }
    /// The rooms of those structures.
    public func rooms() -> Query<Room> { Query(home: self) }
    /// The devices the token may see.
    public func devices() -> Query<HomeDevice> { Query(home: self) }

    /// One device now, then each change of it; finishes when it is removed (at once if there is none).
    public func device(id: String) -> AnyPublisher<HomeDevice, HomeError> {
        FeedPublisher(home: self, scope: id, interest: Query<HomeDevice>.changed(id, home: self), render: DeviceRenders.single(id, home: self)).eraseToAnyPublisher()
    }

    /// One structure now, then each change of it.
    public func structure(id: String) -> AnyPublisher<Structure, HomeError> {
        FeedPublisher(home: self, interest: Query<Structure>.changed(id, home: self), render: Query<Structure>.single(id, home: self)).eraseToAnyPublisher()
    }

    /// One room now, then each change of it.
    public func room(id: String) -> AnyPublisher<Room, HomeError> {
        FeedPublisher(home: self, interest: Query<Room>.changed(id, home: self), render: Query<Room>.single(id, home: self)).eraseToAnyPublisher()
    }

    /// ``device(id:)`` as an asynchronous sequence.
    public func deviceUpdates(id: String) -> HomeUpdates<HomeDevice> {
        HomeUpdates(home: self, scope: id, interest: Query<HomeDevice>.changed(id, home: self), render: DeviceRenders.single(id, home: self))
    }

    /// ``structure(id:)`` as an asynchronous sequence: the structure now, then each change of it; ends when it
    /// is removed (at once if there is none).
    ///
    /// ```swift
    /// for try await structure in home.structureUpdates(id: "home") { print(structure.name) }
    /// ```
    public func structureUpdates(id: String) -> HomeUpdates<Structure> {
        HomeUpdates(home: self, interest: Query<Structure>.changed(id, home: self), render: Query<Structure>.single(id, home: self))
    }

    /// ``room(id:)`` as an asynchronous sequence: the room now, then each change of it; ends when it is
    /// deleted (at once if there is none).
    public func roomUpdates(id: String) -> HomeUpdates<Room> {
        HomeUpdates(home: self, interest: Query<Room>.changed(id, home: self), render: Query<Room>.single(id, home: self))
    }

    /// The hub's revision the cache has reached (0 before the first snapshot).
    public var revision: UInt64 { store.revision }

    var callOptions: CallOptions {
        var metadata = Metadata()
        metadata.add("authorization", "Bearer \(token)")
        return CallOptions(timeout: configuration.callTimeout, metadata: metadata)
    }

    private var isClosed: Bool { closed.load(ordering: .sequentiallyConsistent) }

    /// A unary call with the home's token and deadline; errors as ``HomeError``, `cancelled` once the home is
    /// closed (also for a call the closing cut short).
    func call<Request: Sendable, Response: Sendable>(_ method: MethodDescriptor<Request, Response>, _ request: Request)
        async throws(HomeError) -> Response
    {
        guard !isClosed else { throw HomeError(.cancelled, "the home is closed") }
        do {
            return try await client.unary(method, request: request, options: callOptions)
        } catch {
            if isClosed { throw HomeError(.cancelled, "the home is closed") }
            throw HomeError.from(error)
        }
    }
}

extension Home: Hashable {
    public static func == (lhs: Home, rhs: Home) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

import Foundation
public import HearthSDK
import OpenCombineShim
import Synchronization

/// OpenCombine's `AnyCancellable` is not marked Sendable. These are only stored, then cancelled by
/// ``LoadClient/close()`` under the client's Mutex, and cancelling a HearthSDK subscription from any thread
/// is safe (its feed keeps its state behind a Mutex).
struct Cancellables: @unchecked Sendable {
    var all: [AnyCancellable]
}

/// How a load client watches the home.
public enum ClientKind: String, Codable, Sendable, CaseIterable {
    /// `home.devices().batched()`: the whole set on each change.
    case batched
    /// `home.devices().stream()`: each changed device.
    case stream
    /// `home.device(id:)` for a few devices.
    case devices
    /// `device.types.subscribe(DimmableLightDeviceType.self)` (or `subscribeAll()`) for a few devices.
    case types
    /// A raw `Watch` stream decoded with the generated messages, without HearthSDK (``LeanWatch``): the
    /// hub's fan-out with a client that costs next to nothing. It sends no commands.
    case watch
}

/// One watching client: a `Home` of its own, the subscriptions of its kind, and a ``ProbeTracker`` fed by
/// its publishers.
public final class LoadClient: Sendable {
    /// Its name in the report (`batched-1`…).
    public let name: String
    /// How it watches.
    public let kind: ClientKind
    /// Its connection (nil for a `watch` client, which has a ``LeanWatch`` instead).
    public let home: Home?
    let lean: LeanWatch?
    /// The hub ids it watches; nil for all.
    public let watched: Set<String>?
    /// Seconds from `Home.connect` to the first `list()`.
    public let firstList: Double
    let tracking = Tracking()
    let stallUntil = Atomic<UInt64>(0)
    let subscriptions = Mutex(Cancellables(all: []))
    /// What a `batched` client's last emission held.
    let lastSet = Mutex(BatchDiff())
    /// The devices a `devices` or `types` client subscribes to one by one (empty for the others).
    private let picked: [HomeDevice]

    /// Connects and waits for the first `list()`; ``start()`` subscribes.
    /// - Parameters:
    ///   - pick: how many devices a `devices` or `types` client watches (chosen evenly).
    ///   - updateInterval: the `Home`'s ``Home/Configuration/updateInterval`` (a `watch` client has none).
    public init(
        name: String, kind: ClientKind, address: String, token: String, pick: Int, updateInterval: Duration = .zero
    ) async throws {
        self.name = name
        self.kind = kind
        if kind == .watch {
            let start = LoadProbe.now()
            lean = try await LeanWatch(address: address, token: token, tracking: tracking)
            firstList = Double(LoadProbe.now() - start) / 1e9
            home = nil
            watched = nil
            picked = []
            return
        }
        lean = nil
        var configuration = Home.Configuration()
        configuration.syncTimeout = .seconds(600)
        configuration.updateInterval = updateInterval
        let start = LoadProbe.now()
        let home = try Home.connect(to: address, token: token, configuration: configuration)
        self.home = home
        let listed = try await home.devices().list()
        firstList = Double(LoadProbe.now() - start) / 1e9
        let watched: Set<String>?
        switch kind {
        case .batched, .stream, .watch: watched = nil
        case .devices, .types:
            // Picked evenly in id order; sorting 100,000 devices was counted in `firstList` and took a tenth of
            // the process while ten clients joined.
            let ids = listed.map(\.id).sorted()
            let step = max(1, ids.count / max(pick, 1))
            watched = Set(stride(from: 0, to: ids.count, by: step).prefix(pick).map { ids[$0] })
        }
        self.watched = watched
        tracking.tracker.withLock { $0.reserve(devices: watched?.count ?? listed.count) }
        // Only `devices` and `types` clients subscribe device by device.
        picked = watched.map { picked in listed.filter { picked.contains($0.id) } } ?? []
    }

    /// Subscribes as its kind does; the run calls it once every client has joined, so that one client's
    /// first delivery of the whole home (a `stream()` subscriber's 100,000 devices) is not counted in the
    /// `list()` of another still joining.
    public func start() {
        guard let home else { return }
        subscribe(picked, on: home)
    }

    private func subscribe(_ devices: [HomeDevice], on home: Home) {
        var out: [AnyCancellable] = []
        switch kind {
        case .batched:
            out.append(sink(home.devices().batched()) { client, set in
                let now = client.stallIfAsked()
                let changed = client.lastSet.withLock { $0.changed(in: set) }
                client.tracking.tracker.withLock { tracker in
                    for device in changed {
                        guard let reading = Self.reading(device) else { continue }
                        tracker.observe(device: device.id, reading: reading, state: 0, now: now, isItem: false)
                    }
                }
            })
        case .stream:
            out.append(sink(home.devices().stream()) { client, device in client.observe(device) })
        case .devices:
            for device in devices {
                out.append(sink(home.device(id: device.id)) { client, device in client.observe(device) })
            }
        case .watch:
            break
        case .types:
            for device in devices {
                let id = device.id
                if device.types.contains(DimmableLightDeviceType.self) {
                    out.append(sink(device.types.subscribe(DimmableLightDeviceType.self)) { client, light in
                        client.observe(id, LoadProbe.reading(light.traits)) { light.hashValue }
                    })
                } else {
                    out.append(sink(device.types.subscribeAll()) { client, types in
                        let reading = types.traitData(LoadProbe.traitID).flatMap(LoadProbe.reading)
                        client.observe(id, reading) { types.hashValue }
                    })
                }
            }
        }
        subscriptions.withLock { $0.all = out }
    }

    private func sink<P: Publisher>(_ publisher: P, _ receive: @escaping @Sendable (LoadClient, P.Output) -> Void)
        -> AnyCancellable where P.Failure == HomeError
    {
        publisher.sink(
            receiveCompletion: { [weak self] completion in
                if case .failure(let error) = completion { self?.tracking.fail("\(error)") }
            },
            receiveValue: { [weak self] value in if let self { receive(self, value) } })
    }

    private func observe(_ device: HomeDevice) {
        observe(device.id, Self.reading(device)) {
            var state = Hasher()  // the device's whole state (HomeDevice hashes its id only)
            state.combine(device.name)
            state.combine(device.roomID)
            state.combine(device.sourceConnectivity)
            state.combine(device.types.all)
            return state.finalize()
        }
    }

    private func observe(_ id: String, _ reading: LoadProbe.Reading?, _ state: @escaping @Sendable () -> Int) {
        let now = stallIfAsked()
        guard let reading else { return }
        tracking.tracker.withLock { $0.observe(device: id, reading: reading, now: now, isItem: true, state: state) }
    }

    /// The probe's reading, decoding only the probe trait (building every type's traits to find it was half
    /// of the process holding ten clients that had just listed a 100,000-device home).
    static func reading(_ device: HomeDevice) -> LoadProbe.Reading? {
        device.types.all.traitData(LoadProbe.traitID).flatMap(LoadProbe.reading)
    }

    /// Blocks this subscription's queue while a stall is asked for (only this client's deliveries wait);
    /// returns the time of delivery.
    private func stallIfAsked() -> UInt64 {
        let until = stallUntil.load(ordering: .relaxed)
        let now = LoadProbe.now()
        if now < until { Thread.sleep(forTimeInterval: Double(until - now) / 1e9) }  // the whole stall at once
        return LoadProbe.now()
    }

    /// Makes every delivery of this client wait until `seconds` from now.
    public func stall(seconds: Double) {
        stallUntil.store(LoadProbe.now() + UInt64(seconds * 1e9), ordering: .relaxed)
    }

    /// Whether every watched device has a baseline.
    public func hasBaseline(devices: Int) -> Bool {
        tracking.tracker.withLock { $0.last.count } >= (watched?.count ?? devices)
    }

    /// The phase's counters and delays so far.
    public var summary: ProbeTracker.Summary { tracking.tracker.withLock { $0.summary } }

    /// How many of `expected`'s devices this client has not reached; counted under the lock, so the
    /// per-device state is never copied (a copy would make the next delivery copy it again, whole).
    public func missing(_ expected: [String: UInt64]) -> Int {
        tracking.tracker.withLock { $0.missing(expected: expected).count }
    }

    /// Resets the phase counters.
    public func startPhase() { tracking.tracker.withLock { $0.startPhase() } }

    /// Why a publisher of this client ended with an error, if one did.
    public var failed: String? { tracking.failure.withLock { $0 } }

    /// Ends the subscriptions and the connection.
    public func close() {
        subscriptions.withLock { $0.all.removeAll() }
        home?.close()
        lean?.close()
    }
}

import Foundation
import HearthSDK
import Synchronization

/// What `hearth-load sdk-bench` measures of HearthSDK alone, fed by a ``ReplayServer`` in another process.
public struct SDKBenchResult: Sendable {
    public var subscriber: SDKBenchSubscriber
    public var devices: Int
    public var changes: Int
    /// Seconds from `Home.connect` until `list()` returned the whole snapshot.
    public var listSeconds: Double
    /// Resident bytes the cache added per device after the snapshot.
    public var bytesPerDevice: Double
    /// Seconds from the go signal until the cache reached the last change's revision.
    public var applySeconds: Double
    /// CPU seconds this process spent in that time.
    public var applyCPUSeconds: Double
    /// Emissions the subscribers received during the changes.
    public var emissions: Int

    public var changesPerSecond: Double { applySeconds > 0 ? Double(changes) / applySeconds : 0 }
    public var cpuMicrosecondsPerChange: Double { changes > 0 ? applyCPUSeconds * 1e6 / Double(changes) : 0 }
}

/// Who watches the cache while the changes are applied.
public enum SDKBenchSubscriber: String, Sendable, CaseIterable {
    /// No subscriber: the cost of applying changes to the cache.
    case none
    /// One `devices().stream()` subscriber.
    case stream
    /// One `devices().batched()` subscriber.
    case batched
    /// 100 `device(id:)` subscribers on devices the changes touch.
    case device
    /// 100 `types.subscribe(DimmableLightDeviceType.self)` subscribers.
    case types
}

public enum SDKBench {
    /// Connects to the replay server at `address`, lists, attaches `subscriber`, sends `go` (through
    /// `start`) and measures until the cache reaches `finalRevision`. With `additions` (each change a new
    /// device), it then checks that the cache holds every device.
    public static func measure(
        address: String, devices: Int, changes: Int, finalRevision: UInt64, subscriber: SDKBenchSubscriber,
        additions: Bool = false, start: () -> Void
    ) async throws -> SDKBenchResult {
        let before = ProcessStats.of(getpid())?.residentBytes ?? 0
        var configuration = Home.Configuration()
        configuration.syncTimeout = .seconds(600)
        let connected = LoadProbe.now()
        let home = try Home.connect(to: address, token: "replay", configuration: configuration)
        defer { home.close() }
        let listed = try await home.devices().list()
        let listSeconds = Double(LoadProbe.now() - connected) / 1e9
        let after = ProcessStats.of(getpid())?.residentBytes ?? 0
        guard listed.count == devices else { throw SDKBenchError("listed \(listed.count) of \(devices) devices") }

        let emissions = Atomic(0)
        var cancellables: [AnyCancellable] = []
        let ids = listed.map(\.id).sorted().prefix(100)
        switch subscriber {
        case .none: break
        case .stream: cancellables.append(home.devices().stream().sink { _ in emissions.add(1, ordering: .relaxed) })
        case .batched: cancellables.append(home.devices().batched().sink { _ in emissions.add(1, ordering: .relaxed) })
        case .device:
            for id in ids { cancellables.append(home.device(id: id).sink { _ in emissions.add(1, ordering: .relaxed) }) }
        case .types:
            for device in listed where ids.contains(device.id) {
                cancellables.append(device.types.subscribe(DimmableLightDeviceType.self).sink { _ in emissions.add(1, ordering: .relaxed) })
            }
        }
        let initial = emissions.load(ordering: .relaxed)
        let cpuBefore = ProcessStats.of(getpid())?.cpuSeconds ?? 0
        let began = LoadProbe.now()
        start()
        while home.revision < finalRevision {
            try await Task.sleep(for: .microseconds(500))
            if LoadProbe.now() - began > 600_000_000_000 { throw SDKBenchError("the changes did not arrive in 600 s") }
        }
        let applySeconds = Double(LoadProbe.now() - began) / 1e9
        let cpu = (ProcessStats.of(getpid())?.cpuSeconds ?? 0) - cpuBefore
        try await Task.sleep(for: .milliseconds(200))  // the subscribers' last renderings
        cancellables.removeAll()
        if additions {
            let held = try await home.devices().list().count
            guard held == devices + changes else { throw SDKBenchError("the cache holds \(held) of \(devices + changes) devices") }
        }
        return SDKBenchResult(
            subscriber: subscriber, devices: devices, changes: changes, listSeconds: listSeconds,
            bytesPerDevice: devices > 0 ? Double(Int64(after) - Int64(before)) / Double(devices) : 0,
            applySeconds: applySeconds, applyCPUSeconds: cpu, emissions: emissions.load(ordering: .relaxed) - initial)
    }
}

struct SDKBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

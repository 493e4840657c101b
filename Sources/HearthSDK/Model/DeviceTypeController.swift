public import HearthModel
import HearthProto
public import HearthTypes
public import OpenCombineShim
import Synchronization

/// The device types of one device, each an endpoint with its traits, bound to the hub so that trait commands
/// and writes reach the device.
public struct DeviceTypeController: Sendable, Hashable {
    // The collection alone: it holds the device's id and the home too, and each copy kept here was a retain
    // per `HomeDevice` made (a `list()` makes one per device).
    let collection: DeviceTypeCollection
    var deviceID: String { collection.deviceID }
    var home: Home { collection.home }

    init(device: CompactDevice, home: Home) {
        collection = DeviceTypeCollection(device: device, home: home)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.collection == rhs.collection }
    public func hash(into hasher: inout Hasher) { hasher.combine(collection) }

    /// The device types as this snapshot holds them, typed on demand: `all[T.self]`.
    public var all: DeviceTypeCollection { collection }

    /// Whether the device has a device type `T`.
    public func contains<T: DeviceType>(_ type: T.Type) -> Bool { collection[T.self] != nil }

    /// The device type `T` as the cache holds it now, or nil when the device lacks it (or is gone).
    public func get<T: DeviceType>(_ type: T.Type) async -> T? {
        guard let device = home.store.snapshot.devices[deviceID] else { return nil }
        return home.device(for: device).types.all[T.self]
    }

    /// The device type `T` now, then again each time one of its traits changes; completes at once when the
    /// device lacks the type, and when the device is removed.
    public func subscribe<T: DeviceType>(_ type: T.Type) -> AnyPublisher<T, HomeError> {
        FeedPublisher(home: home, scope: deviceID, interest: deviceChanged, render: Self.renderer(deviceID, home) { $0[T.self] }).eraseToAnyPublisher()
    }

    /// All the device's types now, then again each time any of their traits changes.
    public func subscribeAll() -> AnyPublisher<DeviceTypeCollection, HomeError> {
        FeedPublisher(home: home, scope: deviceID, interest: deviceChanged, render: Self.renderer(deviceID, home) { $0 }).eraseToAnyPublisher()
    }

    /// ``subscribe(_:)`` as an asynchronous sequence.
    public func updates<T: DeviceType>(_ type: T.Type) -> HomeUpdates<T> {
        HomeUpdates(home: home, scope: deviceID, interest: deviceChanged, render: Self.renderer(deviceID, home) { $0[T.self] })
    }

    /// ``subscribeAll()`` as an asynchronous sequence: all the device's types now, then again each time one
    /// of their traits changes; ends when the device is removed.
    ///
    /// ```swift
    /// for try await types in device.types.updatesAll() {
    ///     print(types[OnOffLightDeviceType.self]?.matterTraits.onOffTrait?.attributes.onOff as Any)
    /// }
    /// ```
    public func updatesAll() -> HomeUpdates<DeviceTypeCollection> {
        HomeUpdates(home: home, scope: deviceID, interest: deviceChanged, render: Self.renderer(deviceID, home) { $0 })
    }

    /// Whether an update touched this device.
    private var deviceChanged: FeedInterest { { [deviceID] _, delta in delta.devices.contains(deviceID) } }

    /// Renders what `pick` takes from the device's types, only when it differs from what was last emitted;
    /// finishes (an empty output list and no more) when the device lacks it or leaves.
    static func renderer<V: Hashable & Sendable>(
        _ deviceID: String, _ home: Home, _ pick: @escaping @Sendable (DeviceTypeCollection) -> V?
    ) -> FeedRender<V> {
        let last = Mutex<V?>(nil)
        return { first, snapshot, delta in
            guard first || delta.devices.contains(deviceID) else { return .values([]) }
            guard let device = snapshot.devices[deviceID],
                let value = pick(home.device(for: device).types.all)
            else { return .finished }
            return last.withLock { last in
                guard value != last else { return .values([]) }
                last = value
                return .values([value])
            }
        }
    }
}

import HearthModel
public import OpenCombineShim
import Synchronization

/// An object kind the home holds: structures, rooms or devices.
public protocol HomeObject: Sendable, Hashable, Identifiable where ID == String {
    /// Every object of the kind in a snapshot.
    static func all(in snapshot: HomeSnapshotView) -> [Self]
    /// One object, or nil.
    static func one(_ id: String, in snapshot: HomeSnapshotView) -> Self?
    /// The ids of this kind an update changed.
    static func changed(in snapshot: HomeSnapshotView) -> Set<String>
}

/// A snapshot of the cache with the home it came from, for ``HomeObject`` conformances.
public struct HomeSnapshotView: Sendable {
    let snapshot: HomeSnapshot
    let delta: HomeSnapshot.Delta
    let home: Home
}

/// A view of one kind of object of the home: the whole set once (``list()``), the set on each change
/// (``batched()``), or each changed object (``stream()``); each publisher has an asynchronous twin.
///
/// ```swift
/// let lights = try await home.devices().list().filter { $0.types.contains(OnOffLightDeviceType.self) }
/// home.devices().batched().sink(receiveCompletion: { _ in }, receiveValue: { print($0.count) })
/// ```
public struct Query<T: HomeObject>: Sendable {
    let home: Home

    /// The current set, once, after the first sync with the hub (waits at most the home's `syncTimeout`).
    /// - Throws: ``HomeError`` `deadlineExceeded` when the hub does not answer in time, or why the home
    ///   closed.
    public func list() async throws -> Set<T> {
        let snapshot = try await home.store.synced(timeout: home.configuration.syncTimeout)
        return Set(T.all(in: HomeSnapshotView(snapshot: snapshot, delta: .init(), home: home)))
    }

    /// The whole set now, then again each time something of this kind is added, removed or modified.
    public func batched() -> AnyPublisher<Set<T>, HomeError> {
        FeedPublisher(home: home, interest: kindChanged, render: batchRender).eraseToAnyPublisher()
    }

    /// Every object now, then each object that changes, as it changes.
    public func stream() -> AnyPublisher<T, HomeError> {
        FeedPublisher(home: home, interest: kindChanged, render: streamRender).eraseToAnyPublisher()
    }

    /// ``batched()`` as an asynchronous sequence.
    public var batches: HomeUpdates<Set<T>> { HomeUpdates(home: home, interest: kindChanged, render: batchRender) }

    /// ``stream()`` as an asynchronous sequence.
    public var changes: HomeUpdates<T> { HomeUpdates(home: home, interest: kindChanged, render: streamRender) }

    /// Whether an update touched objects of this kind.
    private var kindChanged: FeedInterest {
        { [home] snapshot, delta in !T.changed(in: HomeSnapshotView(snapshot: snapshot, delta: delta, home: home)).isEmpty }
    }

    /// Whether an update touched object `id` of this kind.
    static func changed(_ id: String, home: Home) -> FeedInterest {
        { snapshot, delta in T.changed(in: HomeSnapshotView(snapshot: snapshot, delta: delta, home: home)).contains(id) }
    }

    /// Renders the whole set the first time, then updates the set it last emitted with only what changed:
    /// an emission costs a copy of the set, not a rebuild of every object. Devices have their own (see
    /// ``DeviceRenders``).
    private var batchRender: FeedRender<Set<T>> {
        // The same type when T is HomeDevice: the bit cast only names it so.
        if T.self == HomeDevice.self { return unsafeBitCast(DeviceRenders.batched(home), to: FeedRender<Set<T>>.self) }
        let last = Mutex<(set: Set<T>, byID: [String: T])?>(nil)
        return { [home] first, snapshot, delta in
            let view = HomeSnapshotView(snapshot: snapshot, delta: delta, home: home)
            return last.withLock { last in
                guard !first, var (set, byID) = last else {
                    let all = T.all(in: view)
                    last = (Set(all), Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { $1 }))
                    return .values([last!.set])
                }
                let changed = T.changed(in: view)
                guard !changed.isEmpty else { return .values([]) }
                last = nil  // the set is uniquely held while it is updated
                for id in changed {
                    if let old = byID.removeValue(forKey: id) { set.remove(old) }
                    if let new = T.one(id, in: view) {
                        byID[id] = new
                        set.insert(new)
                    }
                }
                last = (set, byID)
                return .values([set])
            }
        }
    }

    private var streamRender: FeedRender<T> {
        if T.self == HomeDevice.self { return unsafeBitCast(DeviceRenders.stream(home), to: FeedRender<T>.self) }
        return { [home] first, snapshot, delta in
            let view = HomeSnapshotView(snapshot: snapshot, delta: delta, home: home)
            if first { return .values(T.all(in: view)) }
            return .values(T.changed(in: view).sorted().compactMap { T.one($0, in: view) })
        }
    }

    /// One object now, then on each change; finishes when it is removed (at once if there is none).
    static func single(_ id: String, home: Home) -> FeedRender<T> {
        { first, snapshot, delta in
            let view = HomeSnapshotView(snapshot: snapshot, delta: delta, home: home)
            guard first || T.changed(in: view).contains(id) else { return .values([]) }
            guard let object = T.one(id, in: view) else { return .finished }
            return .values([object])
        }
    }
}

extension Structure: HomeObject {
    public static func all(in view: HomeSnapshotView) -> [Structure] {
        view.snapshot.structures.values.map { Structure($0, home: view.home) }
    }
    public static func one(_ id: String, in view: HomeSnapshotView) -> Structure? {
        view.snapshot.structures[id].map { Structure($0, home: view.home) }
    }
    public static func changed(in view: HomeSnapshotView) -> Set<String> { view.delta.structures }
}

extension Room: HomeObject {
    public static func all(in view: HomeSnapshotView) -> [Room] { view.snapshot.rooms.values.map { Room($0, home: view.home) } }
    public static func one(_ id: String, in view: HomeSnapshotView) -> Room? {
        view.snapshot.rooms[id].map { Room($0, home: view.home) }
    }
    public static func changed(in view: HomeSnapshotView) -> Set<String> { view.delta.rooms }
}

extension HomeDevice: HomeObject {
    public static func all(in view: HomeSnapshotView) -> [HomeDevice] {
        view.snapshot.devices.values.map(view.home.device(for:))
    }
    public static func one(_ id: String, in view: HomeSnapshotView) -> HomeDevice? {
        view.snapshot.devices[id].map(view.home.device(for:))
    }
    public static func changed(in view: HomeSnapshotView) -> Set<String> { view.delta.devices }
}

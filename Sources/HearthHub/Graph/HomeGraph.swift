import HearthModel
import Synchronization

/// The authoritative home: structures, rooms and devices, and the revision counter.
///
/// A value: the engine owns the one mutable copy; a watcher's snapshot is a copy taken in O(1) (the
/// dictionaries are copy-on-write) and read off the engine's executor.
struct HomeGraph: Sendable {
    var epoch: String
    /// The newest revision given out (committed or not).
    var revision: UInt64
    var structures: [String: StructureRecord] = [:]
    var rooms: [String: RoomRecord] = [:]
    /// Changed through ``put(_:)``, ``removeDevice(_:)``, ``modifyDevice(_:_:)`` and
    /// ``modifyAllDevices(_:)``, which keep ``devicesByDriver`` and ``devicesStamp`` in step.
    private(set) var devices: [String: DeviceRecord] = [:]
    /// The ids of each driver's devices: a driver's connect and disconnect touch its own devices, never
    /// all of them.
    private(set) var devicesByDriver: [String: Set<String>] = [:]
    /// Goes up whenever a device is added or removed: the sorted ids a snapshot sends the devices in are
    /// kept while it stays (``SnapshotCache/sortedDeviceIDs(_:)``).
    private(set) var deviceSetVersion: UInt64 = 0
    /// Changes whenever a device is added, removed or modified (through the four methods that change
    /// `devices`), taken from one counter for the whole process: two graphs with the same stamp hold the same
    /// devices, so a snapshot block encoded from one is what the other would encode (``SnapshotCache``).
    private(set) var devicesStamp = HomeGraph.nextDevicesStamp()

    private static let devicesStamps = Atomic<UInt64>(0)

    private static func nextDevicesStamp() -> UInt64 {
        devicesStamps.add(1, ordering: .relaxed).newValue
    }

    init(epoch: String, revision: UInt64) {
        self.epoch = epoch
        self.revision = revision
    }

    mutating func nextRevision() -> UInt64 {
        revision += 1
        return revision
    }

    /// Devices in a room, sorted by id.
    func devices(inRoom roomID: String) -> [DeviceRecord] {
        devices.values.filter { $0.roomID == roomID }.sorted { $0.id < $1.id }
    }

    /// The devices of a driver, in no order.
    func devices(ofDriver driverID: String) -> [DeviceRecord] {
        devicesByDriver[driverID].map { $0.compactMap { devices[$0] } } ?? []
    }

    /// Adds or replaces a device.
    mutating func put(_ device: DeviceRecord) {
        devicesStamp = Self.nextDevicesStamp()
        if let old = devices.updateValue(device, forKey: device.id) {
            if old.driverID != device.driverID { unindex(old) }
        } else {
            deviceSetVersion += 1
        }
        devicesByDriver[device.driverID, default: []].insert(device.id)
    }

    /// Removes a device; returns it (nil: no such device).
    @discardableResult
    mutating func removeDevice(_ id: String) -> DeviceRecord? {
        guard let old = devices.removeValue(forKey: id) else { return nil }
        devicesStamp = Self.nextDevicesStamp()
        deviceSetVersion += 1
        unindex(old)
        return old
    }

    /// Changes a device in place (no copy of its types and traits); nil when there is no such device. The
    /// change must keep the device's id and driver.
    @discardableResult
    mutating func modifyDevice<R>(_ id: String, _ body: (inout DeviceRecord) -> R) -> R? {
        guard let index = devices.index(forKey: id) else { return nil }
        devicesStamp = Self.nextDevicesStamp()
        return body(&devices.values[index])
    }

    /// Changes every device in place, in no order; `body` returns whether it changed one. The change must keep
    /// each device's id and driver.
    /// - Returns: how many devices changed.
    @discardableResult
    mutating func modifyAllDevices(_ body: (inout DeviceRecord) -> Bool) -> Int {
        devicesStamp = Self.nextDevicesStamp()
        var changed = 0
        var index = devices.values.startIndex
        while index != devices.values.endIndex {
            if body(&devices.values[index]) { changed += 1 }
            devices.values.formIndex(after: &index)
        }
        return changed
    }

    /// Makes room for `count` devices at once: a cold start's inserts then never re-hash the table.
    mutating func reserveDevices(_ count: Int) {
        devices.reserveCapacity(count)
    }

    private mutating func unindex(_ device: DeviceRecord) {
        devicesByDriver[device.driverID]?.remove(device.id)
        if devicesByDriver[device.driverID]?.isEmpty == true { devicesByDriver[device.driverID] = nil }
    }
}

extension HomeGraph {
    /// Puts a saved trait state back when it is newer than what its device's record holds; a state of a
    /// device, endpoint or trait that is gone is ignored.
    mutating func restore(_ state: TraitState) {
        modifyDevice(state.deviceID) { device in
            guard let t = device.typeIndex(endpoint: state.endpoint),
                let i = device.types[t].traitIndex(state.trait.traitID),
                device.types[t].traits[i].revision < state.trait.revision
            else { return }
            device.types[t].traits[i] = state.trait
            device.revision = max(device.revision, state.trait.revision)
        }
    }
}

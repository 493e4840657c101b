import HearthModel

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
    var devices: [String: DeviceRecord] = [:]

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

    /// The devices of a driver.
    func devices(ofDriver driverID: String) -> [DeviceRecord] {
        devices.values.filter { $0.driverID == driverID }
    }
}

extension HomeGraph {
    /// Puts a saved trait state back when it is newer than what its device's record holds; a state of a
    /// device, endpoint or trait that is gone is ignored.
    mutating func restore(_ state: TraitState) {
        guard var device = devices[state.deviceID], let t = device.typeIndex(endpoint: state.endpoint),
            let i = device.types[t].traitIndex(state.trait.traitID),
            device.types[t].traits[i].revision < state.trait.revision
        else { return }
        device.types[t].traits[i] = state.trait
        device.revision = max(device.revision, state.trait.revision)
        devices[state.deviceID] = device
    }
}

import HearthModel
import HearthProto

/// A watch's filter together with the caller's rights: decides, per delivery, what a watcher sees.
struct WatchFilter: Sendable {
    enum Verdict {
        case show
        /// The device left what the watcher sees: send it `device_removed`.
        case movedOut
        case hide
    }

    var access: UserAccess
    var structures: Set<String>
    var devices: Set<String>
    var deviceTypes: Set<UInt32>
    var traits: Set<UInt32>

    init(_ filter: Hearth_V1_WatchFilter, access: UserAccess) {
        self.access = access
        structures = Set(filter.structureIds)
        devices = Set(filter.deviceIds)
        deviceTypes = Set(filter.deviceTypeIds)
        traits = Set(filter.traitIds)
    }

    func verdict(_ entry: LogEntry) -> Verdict {
        if sees(entry.route, structure: entry.route.structureID) { return .show }
        if entry.framedMovedOut != nil, sees(entry.route, structure: entry.route.previousStructureID) {
            return .movedOut
        }
        return .hide
    }

    func sees(_ route: ChangeRoute, structure: String?) -> Bool {
        guard access.canSee(structure: structure) else { return false }
        if !structures.isEmpty {
            guard let structure, structures.contains(structure) else { return false }
        }
        if route.isContext { return true }
        if !devices.isEmpty {
            guard let id = route.deviceID, devices.contains(id) else { return false }
        }
        if !deviceTypes.isEmpty, !route.deviceTypes.contains(where: deviceTypes.contains) { return false }
        if !traits.isEmpty, let trait = route.traitID, !traits.contains(trait) { return false }
        return true
    }

    /// ``sees(_:structure:)`` for a whole device, as a snapshot asks for each of its devices: read from the
    /// record, with no route built (a route's array of device types was an allocation per device per
    /// snapshot).
    func sees(_ device: DeviceRecord) -> Bool {
        guard access.canSee(structure: device.structureID) else { return false }
        if !structures.isEmpty {
            guard let structure = device.structureID, structures.contains(structure) else { return false }
        }
        if !devices.isEmpty, !devices.contains(device.id) { return false }
        if !deviceTypes.isEmpty, !device.types.contains(where: { deviceTypes.contains($0.deviceTypeID.rawValue) }) {
            return false
        }
        return true
    }
}

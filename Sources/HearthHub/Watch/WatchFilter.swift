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

    func sees(_ device: DeviceRecord) -> Bool {
        sees(
            ChangeRoute(structureID: device.structureID, deviceID: device.id, deviceTypes: device.deviceTypeIDs),
            structure: device.structureID)
    }
}

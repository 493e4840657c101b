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

    /// What decides which devices the watcher sees: the filter's sets and the structures its user may see,
    /// not who the user is (two admins see the same devices).
    struct Visibility: Sendable, Hashable {
        var allowedStructures: Set<String>?
        var structures: Set<String>
        var devices: Set<String>
        var deviceTypes: Set<UInt32>
        var traits: Set<UInt32>

        /// Everything: no filter, and a user who may see every structure.
        var isEverything: Bool {
            allowedStructures == nil && structures.isEmpty && devices.isEmpty && deviceTypes.isEmpty && traits.isEmpty
        }
    }

    var visibility: Visibility {
        Visibility(
            allowedStructures: access.structures, structures: structures, devices: devices, deviceTypes: deviceTypes,
            traits: traits)
    }

    func verdict(_ entry: LogEntry) -> Verdict {
        if sees(entry.route, structure: entry.route.structureID) { return .show }
        if entry.framedMovedOut != nil, sees(entry.route, structure: entry.route.previousStructureID) {
            return .movedOut
        }
        return .hide
    }

    func sees(_ route: ChangeRoute, structure: String?) -> Bool {
        sees(
            structure: structure, deviceID: route.deviceID, isContext: route.isContext, traitID: route.traitID,
            hasType: { route.deviceTypes.contains(where: $0.contains) })
    }

    /// ``sees(_:structure:)`` for a whole device, as a snapshot asks for each of its devices: read from the
    /// record, with no route built (a route's array of device types was an allocation per device per
    /// snapshot).
    func sees(_ device: DeviceRecord) -> Bool {
        sees(
            structure: device.structureID, deviceID: device.id, isContext: false, traitID: nil,
            hasType: { wanted in device.types.contains { wanted.contains($0.deviceTypeID.rawValue) } })
    }

    /// The one rule both ask: the caller's rights, then each filter that is set. `hasType` tells whether the
    /// object has one of the wanted device types.
    private func sees(
        structure: String?, deviceID: String?, isContext: Bool, traitID: UInt32?, hasType: (Set<UInt32>) -> Bool
    ) -> Bool {
        guard access.canSee(structure: structure) else { return false }
        if !structures.isEmpty {
            guard let structure, structures.contains(structure) else { return false }
        }
        if isContext { return true }
        if !devices.isEmpty {
            guard let deviceID, devices.contains(deviceID) else { return false }
        }
        if !deviceTypes.isEmpty, !hasType(deviceTypes) { return false }
        if !traits.isEmpty, let traitID, !traits.contains(traitID) { return false }
        return true
    }
}

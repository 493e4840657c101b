public import HearthModel
import HearthProto
import SwiftProtobuf

/// A device as the cache last saw it: names, place, connectivity and its device types with their traits.
///
/// ```swift
/// for device in try await home.devices().list() {
///     if let light = await device.types.get(OnOffLightDeviceType.self) {
///         try await light.matterTraits.onOffTrait?.toggle()
///     }
/// }
/// ```
public struct HomeDevice: Sendable, Hashable, Identifiable {
    /// The values, shared by every copy: `batched()` hands out whole sets of devices, and a copy then costs
    /// one reference count instead of one per member.
    final class Storage: Sendable {
        let id: String
        let name: String
        let structureID: String?
        let roomID: String?
        let isMatterDevice: Bool
        let sourceConnectivity: SourceConnectivity
        let types: DeviceTypeController

        init(_ proto: CompactDevice, home: Home) {
            id = proto.id
            name = proto.name
            structureID = proto.structureID.isEmpty ? nil : proto.structureID
            roomID = proto.roomID.isEmpty ? nil : proto.roomID
            isMatterDevice = proto.isMatterDevice
            sourceConnectivity = SourceConnectivity(
                connectivityState: ConnectivityState(proto: proto.connectivity),
                dataSourceLocality: DataSourceLocality(proto: proto.locality))
            types = DeviceTypeController(device: proto, home: home)
        }
    }

    let storage: Storage

    /// The hub's id (`<driver>/<driver's id>`).
    public var id: String { storage.id }
    /// The user's name for it.
    public var name: String { storage.name }
    /// The structure it is in, if any.
    public var structureID: String? { storage.structureID }
    /// The room it is in, if any.
    public var roomID: String? { storage.roomID }
    /// Whether it is a Matter device.
    public var isMatterDevice: Bool { storage.isMatterDevice }
    /// Its traits' connectivity and data-source locality, aggregated.
    public var sourceConnectivity: SourceConnectivity { storage.sourceConnectivity }
    /// Its device types (one per endpoint).
    public var types: DeviceTypeController { storage.types }

    init(_ device: CompactDevice, home: Home) {
        storage = Storage(device, home: home)
    }

    init(_ proto: Hearth_V1_Device, home: Home) {
        self.init(CompactDevice(proto), home: home)
    }

    /// Equal when everything a user sees is: the hub's revisions are left out (the types compare as
    /// ``DeviceTypeCollection`` does, without copying the message).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        let (a, b) = (lhs.storage, rhs.storage)
        return a === b
            || (a.id == b.id && a.name == b.name && a.structureID == b.structureID && a.roomID == b.roomID
                && a.isMatterDevice == b.isMatterDevice && a.sourceConnectivity == b.sourceConnectivity
                && a.types == b.types)
    }
    /// Hashes the id only: equal devices have equal ids, and a `Set<HomeDevice>` (what `batched()` emits)
    /// then costs one string hash per device instead of hashing every trait value of every device.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Renames the device. Names longer than 60 code points are cut to 60.
    /// - Returns: the device as stored (this value is unchanged).
    public func setName(_ name: String) async throws -> HomeDevice {
        HomeDevice(try await types.home.call(HomeMethods.renameDevice, .with { $0.deviceID = id; $0.name = name }), home: types.home)
    }
}

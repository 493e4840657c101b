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
    /// The hub's id (`<driver>/<driver's id>`).
    public let id: String
    /// The user's name for it.
    public let name: String
    /// The structure it is in, if any.
    public let structureID: String?
    /// The room it is in, if any.
    public let roomID: String?
    /// Whether it is a Matter device.
    public let isMatterDevice: Bool
    /// Its traits' connectivity and data-source locality, aggregated.
    public let sourceConnectivity: SourceConnectivity
    /// Its device types (one per endpoint).
    public let types: DeviceTypeController
    /// The hub's revision of this version of the device (what ``Home/device(for:)`` caches by).
    let revision: UInt64
    let proto: Hearth_V1_Device

    init(_ proto: Hearth_V1_Device, home: Home) {
        id = proto.id
        name = proto.name
        structureID = proto.structureID.isEmpty ? nil : proto.structureID
        roomID = proto.roomID.isEmpty ? nil : proto.roomID
        isMatterDevice = proto.isMatterDevice
        sourceConnectivity = SourceConnectivity(
            connectivityState: ConnectivityState(proto: proto.connectivity),
            dataSourceLocality: DataSourceLocality(proto: proto.locality))
        types = DeviceTypeController(device: proto, home: home)
        revision = proto.revision
        self.proto = proto.withoutRevisions
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.proto == rhs.proto }
    public func hash(into hasher: inout Hasher) { hasher.combine(proto) }

    /// Renames the device. Names longer than 60 code points are cut to 60.
    /// - Returns: the device as stored (this value is unchanged).
    public func setName(_ name: String) async throws -> HomeDevice {
        HomeDevice(try await types.home.call(HomeMethods.renameDevice, .with { $0.deviceID = id; $0.name = name }), home: types.home)
    }
}

@testable import HearthHub
import HearthProto
import SwiftProtobuf
import Testing

/// A snapshot asks the filter about whole devices; live changes about routes. Both must agree.
@Suite("Watch filter: a device is seen exactly when its route is")
struct WatchFilterTests {
    static let filters: [Hearth_V1_WatchFilter] = [
        Hearth_V1_WatchFilter(),
        .with { $0.structureIds = ["home"] },
        .with { $0.structureIds = ["s", "elsewhere"] },
        .with { $0.deviceIds = ["lights/lamp-1", "v/x"] },
        .with { $0.deviceTypeIds = [0x0022] },
        .with { $0.deviceTypeIds = [0x0301, 0x9999] },
        .with { $0.traitIds = [0x0006] },
        .with { $0.structureIds = ["home"]; $0.deviceTypeIds = [0x0101]; $0.traitIds = [0x0008] },
    ]
    static let users = [
        UserAccess(user: "admin", role: .admin, structures: nil),
        UserAccess(user: "member", role: .member, structures: ["home"]),
        UserAccess(user: "viewer", role: .viewer, structures: []),
    ]

    @Test("sees(device) answers as sees(route) does, for every filter, user and device")
    func deviceAgreesWithRoute() {
        var checked = 0
        var seen = 0
        for proto in Self.filters {
            for user in Self.users {
                let filter = WatchFilter(proto, access: user)
                for device in SnapshotEncodingTests.devices {
                    let route = ChangeRoute(structureID: device.structureID, deviceID: device.id, deviceTypes: device.deviceTypeIDs)
                    let expected = filter.sees(route, structure: device.structureID)
                    #expect(filter.sees(device) == expected, "\(device.id), filter \(proto), user \(user.user)")
                    checked += 1
                    if expected { seen += 1 }
                }
            }
        }
        #expect(checked == Self.filters.count * Self.users.count * SnapshotEncodingTests.devices.count)
        #expect(seen > 0 && seen < checked, "the cases cover both answers")
    }
}

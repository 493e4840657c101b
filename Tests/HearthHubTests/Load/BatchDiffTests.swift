@testable import HearthLoad
import HearthProto
@testable import HearthSDK
import SwiftProtobuf
import Testing

/// A `batched` load client's diff: which devices of an emission are new or changed, found by comparing the
/// devices' storage where the emission kept its order and by value where it did not.
@Suite struct BatchDiffTests {
    /// A device as the SDK would emit it: `name` stands for its content.
    static func device(_ id: String, _ name: String, home: Home) -> HomeDevice {
        HomeDevice(
            Hearth_V1_Device.with {
                $0.id = id
                $0.driverID = "lights"
                $0.name = name
                $0.types = [.with { $0.endpoint = 1; $0.deviceTypeID = 0x0100; $0.primary = true }]
            }, home: home)
    }

    @Test func reportsNewAndChangedDevicesOnlyOnce() throws {
        // Nothing listens at this address: the home is only what the devices are bound to.
        let home = try Home.connect(to: "127.0.0.1:9", token: "t")
        defer { home.close() }
        let ids = (0..<50).map { "lights/\($0)" }
        var set = Set(ids.map { Self.device($0, "first", home: home) })
        var diff = BatchDiff()

        #expect(Set(diff.changed(in: set).map(\.id)) == Set(ids))  // the first emission: all new
        #expect(diff.changed(in: set).isEmpty)  // the same values again

        // Updated in place, as the SDK does (the old value out, the new in; a `HomeDevice` equals another only
        // when all it shows does): one device changed, one replaced by an equal new value.
        func replace(_ id: String, _ name: String) {
            set.remove(set.first { $0.id == id }!)
            set.insert(Self.device(id, name, home: home))
        }
        replace("lights/7", "renamed")
        replace("lights/9", "first")
        let changed = diff.changed(in: set)
        #expect(changed.map(\.id) == ["lights/7"])
        #expect(changed.first?.name == "renamed")
        #expect(diff.changed(in: set).isEmpty)

        // A device added: the order no longer lines up, and only the new one is reported.
        set.insert(Self.device("lights/50", "first", home: home))
        #expect(diff.changed(in: set).map(\.id) == ["lights/50"])

        // A device removed and another changed in the same emission.
        set.remove(set.first { $0.id == "lights/3" }!)
        replace("lights/4", "second")
        #expect(diff.changed(in: set).map(\.id) == ["lights/4"])

        // A set built anew in another order with the same values: nothing changed.
        let rebuilt = Set(set.sorted { $0.id > $1.id })
        #expect(diff.changed(in: rebuilt).isEmpty)
    }
}

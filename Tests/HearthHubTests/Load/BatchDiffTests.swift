@testable import HearthLoad
import HearthProto
@testable import HearthSDK
import SwiftProtobuf
import Testing

/// A `batched` load client's diff: the devices of an emission that are not the value emitted at their
/// place last time, found without comparing the unchanged ones by value.
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

    @Test func reportsNewValuesAndNeverAnUnchangedDevice() throws {
        // Nothing listens at this address: the home is only what the devices are bound to.
        let home = try Home.connect(to: "127.0.0.1:9", token: "t")
        defer { home.close() }
        let ids = (0..<50).map { "lights/\($0)" }
        var set = Set(ids.map { Self.device($0, "first", home: home) })
        var diff = BatchDiff()

        #expect(Set(diff.changed(in: set).map(\.id)) == Set(ids))  // the first emission: all new
        #expect(diff.changed(in: set).isEmpty)  // the same values again

        // Updated in place, as the SDK does (the old value out, the new in; a `HomeDevice` equals another only
        // when all it shows does): two devices get new values.
        func replace(_ id: String, _ name: String) {
            set.remove(set.first { $0.id == id }!)
            set.insert(Self.device(id, name, home: home))
        }
        replace("lights/7", "renamed")
        replace("lights/9", "first")  // an equal value, but another one: its probe is read again
        // A removal can shift a few neighbours back in the set's storage: they are read again too (their
        // probe is one the tracker has seen), but never the whole set.
        let changed = diff.changed(in: set)
        #expect(Set(changed.map(\.id)).isSuperset(of: ["lights/7", "lights/9"]))
        #expect(changed.count < 20)
        #expect(changed.first { $0.id == "lights/7" }?.name == "renamed")
        #expect(diff.changed(in: set).isEmpty)

        // A device added: the order no longer lines up, so every device is read once, then none.
        set.insert(Self.device("lights/50", "first", home: home))
        #expect(diff.changed(in: set).count == 51)
        replace("lights/4", "second")
        let again = diff.changed(in: set)
        #expect(again.contains { $0.id == "lights/4" && $0.name == "second" })
        #expect(again.count < 20)
        #expect(diff.changed(in: set).isEmpty)
    }
}

@testable import HearthHub
import HearthModel
import Testing

@Suite("The graph's index of devices by driver")
struct HomeGraphTests {
    static func device(_ driver: String, _ local: String, name: String = "D") -> DeviceRecord {
        DeviceRecord(
            id: DeviceRecord.globalID(driver: driver, local: local), driverID: driver, localID: local,
            structureID: "home", roomID: nil, name: name, isMatterDevice: false, types: [], revision: 1)
    }

    @Test("put, replace, modify and remove keep each driver's devices, and only its own")
    func index() {
        var graph = HomeGraph(epoch: "e", revision: 0)
        for i in 0..<5 { graph.put(Self.device("lights", "l\(i)")) }
        for i in 0..<3 { graph.put(Self.device("climate", "c\(i)")) }
        #expect(Set(graph.devices(ofDriver: "lights").map(\.localID)) == ["l0", "l1", "l2", "l3", "l4"])
        #expect(graph.devices(ofDriver: "climate").count == 3)
        #expect(graph.devices(ofDriver: "vendor").isEmpty)

        graph.put(Self.device("lights", "l0", name: "Renamed"))
        #expect(graph.devicesByDriver["lights"]?.count == 5)
        #expect(graph.devices["lights/l0"]?.name == "Renamed")

        let renamed = graph.modifyDevice("lights/l1") { device -> String in
            device.name = "Hall"
            return device.name
        }
        #expect(renamed == "Hall")
        #expect(graph.modifyDevice("lights/none") { $0.name = "x" } == nil)

        #expect(graph.removeDevice("lights/l2")?.localID == "l2")
        #expect(graph.removeDevice("lights/l2") == nil)
        #expect(graph.devicesByDriver["lights"] == ["lights/l0", "lights/l1", "lights/l3", "lights/l4"])
        for i in 0..<3 { graph.removeDevice("climate/c\(i)") }
        #expect(graph.devicesByDriver["climate"] == nil)
        #expect(graph.devices.count == 4)
    }

    @Test("every change to a device gives the graph a stamp no graph had; a copy keeps it")
    func devicesStamp() {
        var graph = HomeGraph(epoch: "e", revision: 0)
        var seen: Set<UInt64> = [graph.devicesStamp]
        func changed(_ what: Comment) {
            #expect(seen.insert(graph.devicesStamp).inserted, what)
        }
        graph.put(Self.device("lights", "l0"))
        changed("added")
        graph.put(Self.device("lights", "l0", name: "Renamed"))
        changed("replaced")
        graph.modifyDevice("lights/l0") { $0.name = "Hall" }
        changed("modified")
        graph.modifyAllDevices { _ in false }
        changed("all visited")
        let copy = graph
        #expect(copy.devicesStamp == graph.devicesStamp)
        graph.removeDevice("lights/l0")
        changed("removed")
        let stamp = graph.devicesStamp
        graph.modifyDevice("lights/gone") { $0.name = "x" }
        graph.removeDevice("lights/gone")
        _ = graph.nextRevision()
        graph.rooms["r"] = RoomRecord(id: "r", structureID: "home", name: "R", revision: 1)
        #expect(graph.devicesStamp == stamp, "no device changed")
        #expect(HomeGraph(epoch: "e", revision: 0).devicesStamp != copy.devicesStamp, "a new graph has its own")
    }
}

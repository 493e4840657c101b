import HearthSDK

// Lists the home's devices by room, then toggles the first light it finds.
// Usage: hearth-sdk-example [HOST:PORT|unix:PATH] [TOKEN]
let arguments = Array(CommandLine.arguments.dropFirst())
let home = try Home.connect(
    to: arguments.first ?? "127.0.0.1:7070", token: arguments.dropFirst().first ?? "demo-admin")
defer { home.close() }

let rooms = try await home.rooms().list().sorted { $0.name < $1.name }
let devices = try await home.devices().list().sorted { $0.name < $1.name }
for room in rooms {
    print("\(room.name):")
    for device in devices where device.roomID == room.id {
        print("  \(device.name) (\(device.sourceConnectivity.connectivityState))")
    }
}
print("Not in a room: \(devices.filter { $0.roomID == nil }.map(\.name).joined(separator: ", "))")

for device in devices {
    var onOff = await device.types.get(OnOffLightDeviceType.self)?.matterTraits.onOffTrait
    if onOff == nil { onOff = await device.types.get(DimmableLightDeviceType.self)?.matterTraits.onOffTrait }
    guard let onOff else { continue }
    try await onOff.toggle()
    print("Toggled \(device.name): it was \(onOff.attributes.onOff == true ? "on" : "off")")
    break
}

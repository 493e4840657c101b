import HearthSDK

/// A subscription whose `AnyCancellable` is not kept: the value already in the synced cache arrives before
/// `sink` returns, so the light can be toggled with it.
@MainActor
func toggleFirstLight(_ home: Home) async throws {
    let devices = try await home.devices().list()
    guard let device = devices.sorted(by: { $0.id < $1.id }).first(where: { $0.types.contains(OnOffLightDeviceType.self) })
    else { throw GuideFailure("no on/off light") }

    var light: OnOffLightDeviceType?
    _ = device.types.subscribe(OnOffLightDeviceType.self).sink { light = $0 }
    guard let onOffTrait = light?.matterTraits.onOffTrait else {
        throw GuideFailure("the unretained subscription delivered nothing")
    }
    let wasOn = onOffTrait.onOff ?? false
    if wasOn { try await onOffTrait.off() } else { try await onOffTrait.on() }

    // Wait for the new state the way the guides observe it.
    for try await update in device.types.subscribe(OnOffLightDeviceType.self).values
    where update.matterTraits.onOffTrait?.onOff == !wasOn {
        print("\(device.name) turned \(wasOn ? "off" : "on")")
        return
    }
    throw GuideFailure("the light's new state never came")
}

/// Attributes read straight off a trait and through `.attributes`: the same values.
@MainActor
func printLightStates(_ home: Home) async throws {
    let devices = try await home.devices().list()
    var checked = 0
    for device in devices.sorted(by: { $0.name < $1.name }) {
        guard let light = await device.types.get(DimmableLightDeviceType.self),
            let onOffTrait = light.matterTraits.onOffTrait,
            let levelControlTrait = light.matterTraits.levelControlTrait
        else { continue }
        guard onOffTrait.onOff == onOffTrait.attributes.onOff,
            levelControlTrait.currentLevel == levelControlTrait.attributes.currentLevel,
            levelControlTrait.minLevel == levelControlTrait.attributes.minLevel
        else { throw GuideFailure("\(device.name): the two ways disagree") }
        let state = onOffTrait.onOff == true ? "on" : "off"
        print("\(device.name): \(state), level \(levelControlTrait.currentLevel.map(String.init) ?? "-")")
        checked += 1
    }
    guard checked > 0 else { throw GuideFailure("no dimmable light") }
    print("checked \(checked) dimmable lights")
}

/// A standard on/off light that also carries a vendor trait, read through the light's device type.
@MainActor
func spinMirrorBall(_ home: Home) async throws {
    let devices = try await home.devices().list()
    for device in devices {
        guard let light = await device.types.get(OnOffLightDeviceType.self),
            let spinner = light.traits[ExampleOrganization.SpinnerTrait.self]
        else { continue }
        print("\(device.name) is an on/off light spinning at \(spinner.rpm.map(String.init) ?? "?") rpm")
        try await light.matterTraits.onOffTrait?.on()
        try await spinner.update { $0.setRpm(600) }
        for try await update in device.types.subscribe(OnOffLightDeviceType.self).values {
            guard let rpm = update.traits[ExampleOrganization.SpinnerTrait.self]?.rpm, rpm >= 590, rpm <= 610 else { continue }
            print("\(device.name) now spins at about 600 rpm")
            return
        }
    }
    throw GuideFailure("no on/off light with the spinner trait")
}

/// Two device publishers merged into one stream of changes.
@MainActor
func watchTwoDevices(_ home: Home) async throws {
    let devices = try await home.devices().list().sorted { $0.id < $1.id }
    guard devices.count >= 2 else { throw GuideFailure("fewer than two devices") }
    var names: Set<String> = []
    let cancellable = home.device(id: devices[0].id)
        .merge(with: home.device(id: devices[1].id))
        .sink { device in names.insert(device.name) }
    defer { cancellable.cancel() }
    guard names == [devices[0].name, devices[1].name] else { throw GuideFailure("merged: \(names)") }
    print("merged: \(names.sorted().joined(separator: ", "))")
}

import HearthSDK

/// The programs, by name.
enum GuideProgram: String, CaseIterable {
    case roomsWithDevices = "rooms-with-devices"
    case unretainedSubscription = "unretained-subscription"
    case attributesBothWays = "attributes-both-ways"
    case basicInformation = "basic-information"
    case cameraOptions = "camera-options"
    case vendorTraitOnLight = "vendor-trait-on-light"
    case mergedDevices = "merged-devices"

    @MainActor
    func run(_ home: Home) async throws {
        switch self {
        case .roomsWithDevices: try await RoomsViewModel(home: home).run()
        case .unretainedSubscription: try await toggleFirstLight(home)
        case .attributesBothWays: try await printLightStates(home)
        case .basicInformation: try await printBasicInformation(home)
        case .cameraOptions: try await changeCameraOptions(home)
        case .vendorTraitOnLight: try await spinMirrorBall(home)
        case .mergedDevices: try await watchTwoDevices(home)
        }
    }
}

/// What a program did not see.
struct GuideFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

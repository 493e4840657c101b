import HearthSDK

/// Who made each device, as the device guides read it: every device of the demo home has a complete
/// BasicInformation trait.
@MainActor
func printBasicInformation(_ home: Home) async throws {
    let devices = try await home.devices().list()
    var incomplete: [String] = []
    for device in devices.sorted(by: { $0.id < $1.id }) {
        let traits = device.types.all.instances.map(\.traits)
        guard let basicInfoTrait = traits.lazy.compactMap({ $0[Matter.BasicInformationTrait.self] }).first,
            let vendorName = basicInfoTrait.attributes.vendorName,
            let vendorID = basicInfoTrait.attributes.vendorID,
            let productID = basicInfoTrait.attributes.productID,
            let productName = basicInfoTrait.attributes.productName,
            let softwareVersion = basicInfoTrait.attributes.softwareVersion,
            let serialNumber = basicInfoTrait.attributes.serialNumber,
            basicInfoTrait.hardwareVersionString != nil, basicInfoTrait.softwareVersionString != nil
        else {
            incomplete.append(device.id)
            continue
        }
        print("\(device.id): \(vendorName) (\(vendorID)) \(productName) (\(productID)) sw \(softwareVersion) #\(serialNumber)")
    }
    // The camera guide's way: through the device type.
    for device in devices where device.types.contains(GoogleCameraDeviceType.self) {
        guard let camera = await device.types.get(GoogleCameraDeviceType.self),
            let basicInfoTrait = camera.matterTraits.basicInformationTrait,
            basicInfoTrait.attributes.vendorID != nil, basicInfoTrait.productID != nil
        else { throw GuideFailure("\(device.id): no vendor or product id through GoogleCameraDeviceType") }
    }
    guard incomplete.isEmpty else { throw GuideFailure("incomplete BasicInformation: \(incomplete)") }
}

import HearthSDK

/// The camera guide's way of changing one push-transport option: rebuild the options from the current ones
/// with only that field set, the optional sub-structures left out.
@MainActor
func changeCameraOptions(_ home: Home) async throws {
    let devices = try await home.devices().list()
    guard let device = devices.sorted(by: { $0.id < $1.id }).first(where: { $0.types.contains(GoogleCameraDeviceType.self) }),
        let pushAvStreamTransportTrait = await device.types.get(GoogleCameraDeviceType.self)?.googleTraits.pushAvStreamTransportTrait
    else { throw GuideFailure("no camera") }
    typealias Transport = Google.PushAvStreamTransportTrait
    let connections = pushAvStreamTransportTrait.attributes.currentConnections ?? []
    guard let connection = connections.first(where: { $0.transportOptions?.triggerOptions.triggerType == .motion }),
        let options = connection.transportOptions
    else { throw GuideFailure("no motion-triggered connection") }

    // Wake-up sensitivity.
    let sensitivity: UInt8 = options.triggerOptions.motionSensitivity == 10 ? 5 : 10  // the camera allows 1, 5, 10
    let sensitivityOptions = Transport.TransportOptionsStruct(
        streamUsage: options.streamUsage, videoStreamID: options.videoStreamID, audioStreamID: options.audioStreamID,
        tlsEndpointID: options.tlsEndpointID, url: options.url,
        triggerOptions: Transport.TransportTriggerOptionsStruct(triggerType: .motion, motionSensitivity: sensitivity),
        ingestMethod: options.ingestMethod,
        containerOptions: Transport.ContainerOptionsStruct(containerType: options.containerOptions.containerType))
    try await pushAvStreamTransportTrait.modifyPushTransport(
        connectionID: connection.connectionID, transportOptions: sensitivityOptions)

    // Maximum event length.
    let maxDuration: UInt32 = options.triggerOptions.motionTimeControl?.maxDuration == 120 ? 60 : 120  // 10...180 s, in steps
    let control = options.triggerOptions.motionTimeControl
    let lengthOptions = Transport.TransportOptionsStruct(
        streamUsage: options.streamUsage, videoStreamID: options.videoStreamID, audioStreamID: options.audioStreamID,
        tlsEndpointID: options.tlsEndpointID, url: options.url,
        triggerOptions: Transport.TransportTriggerOptionsStruct(
            triggerType: .motion, motionSensitivity: sensitivity,
            motionTimeControl: Transport.TransportMotionTriggerTimeControlStruct(
                initialDuration: control?.initialDuration ?? 10, augmentationDuration: control?.augmentationDuration ?? 5,
                maxDuration: maxDuration, blindDuration: control?.blindDuration ?? 5)),
        ingestMethod: options.ingestMethod,
        containerOptions: Transport.ContainerOptionsStruct(containerType: options.containerOptions.containerType))
    try await pushAvStreamTransportTrait.modifyPushTransport(
        connectionID: connection.connectionID, transportOptions: lengthOptions)

    for try await camera in device.types.subscribe(GoogleCameraDeviceType.self).values {
        let current = camera.googleTraits.pushAvStreamTransportTrait?.attributes.currentConnections?
            .first { $0.connectionID == connection.connectionID }?.transportOptions
        guard current?.triggerOptions.motionSensitivity == sensitivity,
            current?.triggerOptions.motionTimeControl?.maxDuration == maxDuration
        else { continue }
        guard current?.containerOptions.cmafContainerOptions == options.containerOptions.cmafContainerOptions else {
            throw GuideFailure("the CMAF options were not kept")
        }
        print("\(device.name): wake-up sensitivity \(sensitivity), maximum event length \(maxDuration) s")
        return
    }
    throw GuideFailure("the new options never came")
}

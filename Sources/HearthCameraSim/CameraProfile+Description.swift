public import HearthDriverKit
public import HearthModel
import HearthTypes

extension CameraProfile {
    /// The platform traits of the device, all cloud-routed (`.remote`): a camera's live view, recordings and
    /// settings go through its maker's cloud. BasicInformation is the local Matter trait.
    public var remoteTraits: [TraitID] {
        var traits = [Google.PushAvStreamTransportTrait.traitID, Google.WebRtcLiveViewTrait.traitID, Settings.traitID]
        if kind == .doorbell { traits.insert(Google.DoorbellPressTrait.traitID, at: 0) }
        return traits
    }

    /// The device as the driver announces it: one endpoint, a GoogleCamera or a GoogleDoorbell (with the
    /// camera traits), with its current settings and transports.
    public var deviceDescription: DeviceDescription {
        var traits: [TraitDescription] = []
        if kind == .doorbell { traits.append(.trait(Google.DoorbellPressTrait.self, locality: .remote)) }
        traits += [
            .trait(Google.PushAvStreamTransportTrait.self, locality: .remote) {
                $0.supportedFormats = [.init(containerFormat: .cmaf, ingestMethod: .cmafIngest)]
                $0.currentConnections = transports
            },
            .trait(Google.WebRtcLiveViewTrait.self, locality: .remote),
            .trait(Settings.self, locality: .remote) { initialSettings(&$0) },
        ]
        // A Matter test vendor id (0xFFF1), so no real vendor's id is claimed.
        let (product, productID): (String, UInt16) =
            kind == .doorbell ? ("Hearth Doorbell", 0xA003) : outdoor ? ("Hearth Cam Outdoor", 0xA002) : ("Hearth Cam Indoor", 0xA001)
        let information = TraitDescription.basicInformation(
            vendorName: "Hearth", vendorID: 0xFFF1, productName: product, productID: productID, serialNumber: serial,
            softwareVersion: 0x0204_0100, softwareVersionString: "2.4.1", hardwareVersion: outdoor ? 3 : 2,
            hardwareVersionString: outdoor ? "rev C" : "rev B", productLabel: "Hearth \(product)",
            partNumber: "HC-" + String(productID, radix: 16, uppercase: true))
        let endpoint =
            kind == .doorbell
            ? EndpointDescription(GoogleDoorbellDeviceType.self, traits: traits)
            : EndpointDescription(GoogleCameraDeviceType.self, traits: traits)
        return DeviceDescription(
            id: id, name: name, room: room, basicInformation: information, endpoints: [endpoint])
    }

    private func initialSettings(_ s: inout Settings.Attributes) {
        s.twoWayTalkSupport = talk
        s.nightVisionUsesInfrared = outdoor
        s.maxNetworkBandwidth = UInt32(width) >= 3840 ? 16_000_000 : 8_000_000
        s.softRecordingPrivacyModeEnabled = false
        s.softLivestreamPrivacyModeEnabled = false
        s.hardPrivacyModeOn = false
        s.nightVision = .auto
        s.nightVisionIllum = .auto
        s.viewport = .init(x1: 0, y1: 0, x2: width - 1, y2: height - 1)
        if talk != .notSupported {
            s.speakerMuted = false
            s.speakerMinLevel = 0
            s.speakerMaxLevel = 100
            s.speakerVolumeLevel = 60
        }
        s.microphoneMuted = false
        s.microphoneMinLevel = 0
        s.microphoneMaxLevel = 100
        s.microphoneVolumeLevel = 70
        s.microphoneAGCEnabled = true
        s.recordingMicrophoneMuted = false
        s.imageRotation = 0
        s.imageFlipHorizontal = false
        s.imageFlipVertical = false
        s.localVideoRecordingEnabled = false
        s.statusLightEnabled = true
        s.statusLightBrightness = .medium
    }
}

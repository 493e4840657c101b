import Foundation
import HearthCameraSim
import HearthSDK
import Testing

/// Camera calls end to end through HearthSDK: a `Home` against a real hub with the camera simulation driver
/// finds cameras and doorbells by device type and drives live view and talkback with typed trait calls.
@Suite("HearthSDK with the camera driver: discovery, live view, talkback, errors")
struct SDKCameraTests {
    @Test("cameras and doorbells are found by device type, with their platform traits remote and BasicInformation local")
    func discovery() async throws {
        try await withCameraHome { _, simulation, home in
            let devices = try await home.devices().list()
            let cameras = devices.filter { $0.types.contains(GoogleCameraDeviceType.self) }
            let doorbells = devices.filter { $0.types.contains(GoogleDoorbellDeviceType.self) }
            #expect(cameras.map(\.id).sorted() == ["camera/camera-0", "camera/camera-2"])
            #expect(doorbells.map(\.id) == ["camera/doorbell-1"])

            let device = try #require(cameras.first { $0.id == "camera/camera-0" })
            let profile = simulation.profiles[0]
            #expect(device.name == profile.name && device.isMatterDevice)
            #expect(device.sourceConnectivity == SourceConnectivity(connectivityState: .online, dataSourceLocality: .mixed))
            let room = try #require(try await home.rooms().list().first { $0.id == device.roomID })
            #expect(room.name == profile.room && room.structureID == device.structureID)

            let camera = try #require(await device.types.get(GoogleCameraDeviceType.self))
            #expect(camera.metadata.isPrimaryType)
            #expect(camera.metadata.sourceConnectivity.dataSourceLocality == .mixed)
            #expect(camera.missingRequiredTraits.isEmpty)
            let liveView = try #require(camera.googleTraits.webRtcLiveViewTrait)
            #expect(liveView.metadata.sourceConnectivity == SourceConnectivity(connectivityState: .online, dataSourceLocality: .remote))
            #expect(camera.googleTraits.pushAvStreamTransportTrait?.attributes.currentConnections == profile.transports)
            #expect(camera.googleTraits.cameraAvStreamManagementTrait?.attributes.twoWayTalkSupport == profile.talk)
            let information = try #require(camera.matterTraits.basicInformationTrait)
            #expect(information.metadata.sourceConnectivity.dataSourceLocality == .local)
            #expect(information.attributes.vendorName == "Hearth")
            #expect(information.attributes.serialNumber == profile.serial)
            #expect(information.attributes.productName?.hasPrefix("Hearth Cam") == true)
            #expect(information.attributes.softwareVersionString == "2.4.1")

            let doorbellDevice = try #require(doorbells.first)
            #expect(!doorbellDevice.types.contains(GoogleCameraDeviceType.self))
            let doorbell = try #require(await doorbellDevice.types.get(GoogleDoorbellDeviceType.self))
            #expect(doorbell.googleTraits.doorbellPressTrait != nil)
            #expect(doorbell.googleTraits.webRtcLiveViewTrait != nil, "a doorbell is a camera with a button")
            #expect(doorbell.traits.contains(Google.CameraAvStreamManagementTrait.self))
            #expect(doorbell.matterTraits.basicInformationTrait?.attributes.productName == "Hearth Doorbell")
        }
    }

    @Test("startLiveView answers each offered section with a session and its duration; extend, talkback, stop")
    func liveView() async throws {
        try await withCameraHome(configure: { $0.liveSessionSeconds = 120 }) { _, simulation, home in
            let device = try await home.cachedDevice("camera/doorbell-1")
            let liveView = try #require(await device.types.get(GoogleDoorbellDeviceType.self)?.googleTraits.webRtcLiveViewTrait)
            let offerText = ExampleOffer.chrome()
            let started = try await liveView.startLiveView(offerSdp: offerText)
            #expect(started.liveSessionDurationSeconds == 120)
            #expect(started.mediaSessionId.hasPrefix("lv-") && started.mediaSessionId.count > 3)
            #expect(simulation.liveSessions("doorbell-1").map(\.id) == [started.mediaSessionId])

            // A well-formed answer: it parses, CRLF line ends, one section per offered m= line, in order, with
            // the camera's own ICE credentials and DTLS fingerprint.
            let offer = try SessionDescription(parsing: offerText)
            let answer = try SessionDescription(parsing: started.answerSdp)
            #expect(started.answerSdp.hasPrefix("v=0\r\n") && started.answerSdp.hasSuffix("\r\n"))
            #expect(!started.answerSdp.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
            #expect(answer.media.map(\.kind) == ["audio", "video", "application"])
            #expect(answer.media.map(\.kind) == offer.media.map(\.kind))
            #expect(answer.media.map(\.mid) == offer.media.map(\.mid))
            #expect(answer.media.map(\.proto) == offer.media.map(\.proto))
            #expect(answer.media[0].direction == .sendrecv, "the doorbell talks back and listens")
            #expect(answer.media[1].direction == .sendonly, "the camera sends the video the browser receives")
            #expect(answer.media.allSatisfy { section in
                section.attribute("ice-ufrag").map { $0 != ExampleOffer.iceUfrag } ?? false
                    && section.attribute("fingerprint")?.hasPrefix("sha-256 ") == true
                    && section.attribute("fingerprint") != ExampleOffer.fingerprint
            })

            let extended = try await liveView.extendLiveView(mediaSessionId: started.mediaSessionId)
            #expect(extended.liveSessionDurationSeconds == 120)

            try await liveView.startTalkback(mediaSessionId: started.mediaSessionId)
            #expect(simulation.liveSessions("doorbell-1").first?.talking == true)
            let again = await expectHomeError(.failedPrecondition) {
                try await liveView.startTalkback(mediaSessionId: started.mediaSessionId)
            }
            #expect(again?.message.contains("already on") == true, "\(String(describing: again))")
            try await liveView.stopTalkback(mediaSessionId: started.mediaSessionId)
            #expect(simulation.liveSessions("doorbell-1").first?.talking == false)

            try await liveView.stopLiveView(mediaSessionId: started.mediaSessionId)
            #expect(simulation.heldSessions("doorbell-1") == 0)
            await expectHomeError(.notFound) { try await liveView.extendLiveView(mediaSessionId: started.mediaSessionId) }
        }
    }

    @Test("a session expires after its duration: the camera drops it and extendLiveView is then notFound")
    func expiry() async throws {
        try await withCameraHome(configure: { $0.liveSessionSeconds = 1 }) { _, simulation, home in
            let liveView = try #require(try await home.cachedDevice("camera/camera-0").types.get(GoogleCameraDeviceType.self)?
                .googleTraits.webRtcLiveViewTrait)
            let started = try await liveView.startLiveView(offerSdp: ExampleOffer.chrome())
            #expect(started.liveSessionDurationSeconds == 1 && simulation.counts.commands == 1)
            _ = try await eventually { simulation.heldSessions("camera-0") == 0 ? true : nil }
            await expectHomeError(.notFound) { try await liveView.extendLiveView(mediaSessionId: started.mediaSessionId) }
        }
    }

    @Test("driver and hub refusals arrive as HomeError codes with the driver's message")
    func errors() async throws {
        try await withCameraHome(configure: { $0.maxLiveSessions = 2 }) { _, simulation, home in
            let device = try await home.cachedDevice("camera/camera-0")
            let camera = try #require(await device.types.get(GoogleCameraDeviceType.self))
            let liveView = try #require(camera.googleTraits.webRtcLiveViewTrait)

            let badSDP = await expectHomeError(.invalidArgument) { try await liveView.startLiveView(offerSdp: "hello, camera") }
            #expect(badSDP?.message.contains("line 1") == true, "\(String(describing: badSDP))")
            let noMedia = await expectHomeError(.invalidArgument) {
                try await liveView.startLiveView(offerSdp: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n")
            }
            #expect(noMedia?.message.contains("no media") == true, "\(String(describing: noMedia))")
            #expect(simulation.heldSessions("camera-0") == 0)

            // An unknown session id is the driver's notFound; an empty one the catalog refuses.
            await expectHomeError(.notFound) { try await liveView.extendLiveView(mediaSessionId: "lv-unknown") }
            await expectHomeError(.notFound) { try await liveView.stopLiveView(mediaSessionId: "lv-unknown") }
            await expectHomeError(.notFound) { try await liveView.startTalkback(mediaSessionId: "lv-unknown") }
            await expectHomeError(.invalidArgument) { try await liveView.extendLiveView(mediaSessionId: "") }

            // The camera's limit of sessions: resourceExhausted.
            for _ in 0..<2 { try await liveView.startLiveView(offerSdp: ExampleOffer.chrome()) }
            await expectHomeError(.resourceExhausted) { try await liveView.startLiveView(offerSdp: ExampleOffer.chrome()) }
            #expect(simulation.heldSessions("camera-0") == 2)

            // Privacy mode (a setting written through the SDK): live view is a failed precondition.
            let other = try #require(try await home.cachedDevice("camera/camera-2").types.get(GoogleCameraDeviceType.self))
            try await other.googleTraits.cameraAvStreamManagementTrait?.update { $0.setSoftLivestreamPrivacyModeEnabled(true) }
            let privacy = await expectHomeError(.failedPrecondition) {
                try await other.googleTraits.webRtcLiveViewTrait?.startLiveView(offerSdp: ExampleOffer.chrome())
            }
            #expect(privacy?.message.contains("privacy") == true, "\(String(describing: privacy))")

            // Values outside the catalog's sets are refused before anything is sent: a closed home sends
            // nothing (it would answer `cancelled`), yet these are `invalidArgument`.
            let transports = try #require(camera.googleTraits.pushAvStreamTransportTrait)
            var options = try #require(simulation.profiles[0].transports[0].transportOptions)
            options.triggerOptions.motionSensitivity = 7
            let before = simulation.counts
            home.close()
            await expectHomeError(.invalidArgument) {
                try await transports.modifyPushTransport(connectionID: 1, transportOptions: options)
            }
            options.triggerOptions.motionSensitivity = 5
            options.triggerOptions.motionTimeControl?.maxDuration = 45
            await expectHomeError(.invalidArgument) { try await transports.allocatePushTransport(transportOptions: options) }
            let cameraSettings = try #require(camera.googleTraits.cameraAvStreamManagementTrait)
            await expectHomeError(.invalidArgument) { try await cameraSettings.update { $0.setImageRotation(90) } }
            await expectHomeError(.cancelled) { try await cameraSettings.update { $0.setImageRotation(180) } }
            #expect(simulation.counts == before)
        }
    }
}

import Foundation
import HearthCameraSim
import HearthSDK
import HearthSimulator
import Synchronization
import Testing

/// The camera's push transports, settings, doorbell presses and cloud cuts through HearthSDK against a real
/// hub with the camera simulation driver.
@Suite("HearthSDK with the camera driver: push transports, settings, doorbell presses, cloud cuts")
struct SDKCameraSettingsTests {
    typealias Transport = Google.PushAvStreamTransportTrait

    @Test("allocate, find, modify, activate, trigger, deactivate and deallocate a push transport; the cache follows")
    func transports() async throws {
        try await withCameraHome { _, simulation, home in
            let device = try await home.cachedDevice("camera/camera-0")
            let transports = try #require(await device.types.get(GoogleCameraDeviceType.self)?.googleTraits.pushAvStreamTransportTrait)
            let initial = simulation.profiles[0].transports
            #expect(try await transports.findTransport().transportConfigurations == initial)
            #expect(try await transports.findTransport { $0.connectionID = 1 }.transportConfigurations == [initial[0]])

            let begins = Recorder(device.events(Transport.PushTransportBeginEvent.self))
            let ends = Recorder(device.events(Transport.PushTransportEndEvent.self))
            var updates = device.types.updates(GoogleCameraDeviceType.self).makeAsyncIterator()
            func connections(until done: ([Transport.TransportConfigurationStruct]) -> Bool) async throws
                -> [Transport.TransportConfigurationStruct]
            {
                for _ in 0..<50 {
                    let connections = try #require(try await updates.next()?.googleTraits.pushAvStreamTransportTrait?
                        .attributes.currentConnections)
                    if done(connections) { return connections }
                }
                throw HarnessError(description: "currentConnections never matched")
            }

            var options = CameraProfile.options(id: "sdk", usage: .analysis, trigger: .command, sensitivity: 5, maxDuration: 60)
            let allocated = try await transports.allocatePushTransport(transportOptions: options).transportConfiguration
            let id = allocated.connectionID
            #expect(id == (initial.map(\.connectionID).max() ?? 0) + 1)
            #expect(allocated.transportStatus == .inactive && allocated.transportOptions == options)
            #expect(try await connections { $0.contains { $0.connectionID == id } }.count == initial.count + 1)

            options.url = "https://recordings.example.net/sdk"
            options.triggerOptions.motionSensitivity = 10
            options.triggerOptions.motionTimeControl?.maxDuration = 180
            try await transports.modifyPushTransport(connectionID: id, transportOptions: options)
            #expect(try await transports.findTransport { $0.connectionID = id }.transportConfigurations
                == [.init(connectionID: id, transportStatus: .inactive, transportOptions: options)])

            try await transports.setTransportStatus(transportStatus: .active) { $0.connectionID = id }
            let active = try await connections { $0.first { $0.connectionID == id }?.transportStatus == .active }
            #expect(active.first { $0.connectionID == id }?.transportOptions == options)
            #expect(simulation.isRecording("camera-0"))

            try await transports.manuallyTriggerTransport(connectionID: id, activationReason: .userInitiated)
            let begin = try await eventually { begins.values.withLock { $0.first } }
            #expect(begin.event == .init(connectionID: id, triggerType: .command, activationReason: .userInitiated))
            #expect(begin.deviceID == device.id && begin.endpoint == 1)

            try await transports.setTransportStatus(transportStatus: .inactive)
            _ = try await connections { $0.allSatisfy { $0.transportStatus == .inactive } }
            #expect(!simulation.isRecording("camera-0"))
            let end = try await eventually { ends.values.withLock { $0.first } }
            #expect(end.event.connectionID == id && end.revision >= begin.revision)

            try await transports.deallocatePushTransport(connectionID: id)
            #expect(try await connections { !$0.contains { $0.connectionID == id } } == initial.map {
                var connection = $0
                connection.transportStatus = .inactive
                return connection
            })
            await expectHomeError(.notFound) { _ = try await transports.findTransport { $0.connectionID = id } }
            await expectHomeError(.notFound) { try await transports.deallocatePushTransport(connectionID: id) }
            #expect(begins.count == 1 && ends.count == 1)
        }
    }

    @Test("settings written with trait.update are seen back in the cache; the called value is unchanged")
    func settings() async throws {
        try await withCameraHome { _, simulation, home in
            let device = try await home.cachedDevice("camera/doorbell-1")
            let doorbells = Recorder(device.types.subscribe(GoogleDoorbellDeviceType.self))
            let settings = try #require(await device.types.get(GoogleDoorbellDeviceType.self)?.googleTraits.cameraAvStreamManagementTrait)
            let viewport = Google.CameraAvStreamManagementTrait.ViewportStruct(x1: 100, y1: 50, x2: 1199, y2: 899)
            try await settings.update {
                $0.setMicrophoneMuted(true)
                $0.setRecordingMicrophoneMuted(true)
                $0.setSpeakerVolumeLevel(30)
                $0.setImageRotation(180)
                $0.setNightVision(.on)
                $0.setStatusLightBrightness(.high)
                $0.setViewport(viewport)
            }
            let seen = try await eventually { () -> Google.CameraAvStreamManagementTrait.Attributes? in
                let last = doorbells.values.withLock { $0.last }?.googleTraits.cameraAvStreamManagementTrait?.attributes
                return last?.imageRotation == 180 ? last : nil
            }
            #expect(seen.microphoneMuted == true && seen.recordingMicrophoneMuted == true)
            #expect(seen.speakerVolumeLevel == 30)
            #expect(seen.nightVision == .on)
            #expect(seen.statusLightBrightness == .high)
            #expect(seen.viewport == viewport)
            #expect(settings.attributes.imageRotation == 0 && settings.attributes.nightVision == .auto, "a value snapshot")
            let cached = try await home.cachedDevice(device.id).types.get(GoogleDoorbellDeviceType.self)
            #expect(cached?.googleTraits.cameraAvStreamManagementTrait?.attributes == seen)

            // The camera's own limit (speakerMaxLevel 100, within the catalog's 254): refused, nothing stored.
            let refused = await expectHomeError(.invalidArgument) { try await settings.update { $0.setSpeakerVolumeLevel(200) } }
            #expect(refused?.message.contains("between 0 and 100") == true, "\(String(describing: refused))")
            #expect(simulation.counts.writes == 2)
            #expect(try await home.cachedDevice(device.id).types.get(GoogleDoorbellDeviceType.self)?.googleTraits
                .cameraAvStreamManagementTrait?.attributes.speakerVolumeLevel == 30)
        }
    }

    @Test("each doorbell press arrives once as a HomeEvent, in order, with its time, on the doorbell only")
    func doorbellPresses() async throws {
        try await withCameraHome { _, simulation, home in
            typealias Pressed = Google.DoorbellPressTrait.DoorbellPressedEvent
            let doorbell = try await home.cachedDevice("camera/doorbell-1")
            let presses = Recorder(doorbell.events(Pressed.self))
            var twin = doorbell.eventUpdates(Pressed.self).makeAsyncIterator()
            let elsewhere = Recorder(try await home.cachedDevice("camera/camera-0").events(Pressed.self))

            try simulation.press("doorbell-1")
            try simulation.press("doorbell-1")
            let firstTwo = try await eventually { presses.count >= 2 ? presses.values.withLock { $0 } : nil }
            // A third press after the first two arrived: had either of them been delivered twice, the copy
            // would come before it.
            try simulation.press("doorbell-1")
            let newest = try #require(firstTwo.map(\.revision).max())
            _ = try await eventually { presses.values.withLock { $0.contains { $0.revision > newest } } ? true : nil }
            let seen = presses.values.withLock { $0 }
            #expect(seen.count == 3)
            #expect(seen.allSatisfy { $0.deviceID == doorbell.id && $0.endpoint == 1 && $0.event == Pressed() })
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.revision <= $1.revision && $0.time <= $1.time })
            #expect(seen.allSatisfy { abs($0.time.timeIntervalSinceNow) < 60 })
            var twinSeen: [HomeEvent<Pressed>] = []
            for _ in 0..<3 { twinSeen.append(try #require(try await twin.next())) }
            #expect(twinSeen == seen)
            #expect(elsewhere.count == 0 && elsewhere.completion.withLock { $0 } == nil)
        }
    }

    @Test("a cloud cut shows partiallyOnline and mixed; calls to the cut traits are unavailable until it is back")
    func cloudCut() async throws {
        try await withCameraHome { _, simulation, home in
            let id = "camera/doorbell-1"
            var updates = home.deviceUpdates(id: id).makeAsyncIterator()
            let before = try #require(try await updates.next())
            #expect(before.sourceConnectivity.connectivityState == .online)
            simulation.cloud.set(up: false)
            var cut = before
            for _ in 0..<50 where cut.sourceConnectivity.connectivityState != .partiallyOnline {
                cut = try #require(try await updates.next())
            }
            #expect(cut.sourceConnectivity == SourceConnectivity(connectivityState: .partiallyOnline, dataSourceLocality: .mixed))
            let doorbell = try #require(await cut.types.get(GoogleDoorbellDeviceType.self))
            let liveView = try #require(doorbell.googleTraits.webRtcLiveViewTrait)
            // The remote traits may go offline one report at a time: wait for the last of them.
            let offline = try await eventually { () -> GoogleDoorbellDeviceType? in
                let now = try await home.cachedDevice(id).types.get(GoogleDoorbellDeviceType.self)
                let remote = [now?.googleTraits.doorbellPressTrait?.metadata, now?.googleTraits.webRtcLiveViewTrait?.metadata,
                    now?.googleTraits.pushAvStreamTransportTrait?.metadata, now?.googleTraits.cameraAvStreamManagementTrait?.metadata]
                return remote.allSatisfy { $0?.sourceConnectivity.connectivityState == .offline } ? now : nil
            }
            #expect(offline.metadata.sourceConnectivity == SourceConnectivity(connectivityState: .partiallyOnline, dataSourceLocality: .mixed))
            #expect(offline.matterTraits.basicInformationTrait?.metadata.sourceConnectivity.connectivityState == .online)

            let counts = simulation.counts
            await expectHomeError(.unavailable) { try await liveView.startLiveView(offerSdp: ExampleOffer.chrome()) }
            await expectHomeError(.unavailable) {
                try await doorbell.googleTraits.cameraAvStreamManagementTrait?.update { $0.setMicrophoneMuted(true) }
            }
            #expect(simulation.counts == counts)

            simulation.cloud.set(up: true)
            _ = try await eventually {
                try await home.cachedDevice(id).sourceConnectivity.connectivityState == .online ? true : nil
            }
            #expect(try await liveView.startLiveView(offerSdp: ExampleOffer.chrome()).liveSessionDurationSeconds == 300)
        }
    }
}

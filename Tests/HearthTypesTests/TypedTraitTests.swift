import HearthModel
import HearthTypes
import Testing

@Suite("Typed traits")
struct TypedTraitTests {
    static func light(_ sender: RecordingSender, onOff: Bool = false) -> DimmableLightDeviceType {
        let traits = TraitCollection(
            [
                Matter.OnOffTrait.traitID: TraitData(attributes: [0x0000: .bool(onOff)]),
                Matter.LevelControlTrait.traitID: TraitData(attributes: [0x0000: .uint(128), 0x0011: .null]),
                Matter.IdentifyTrait.traitID: TraitData(),
            ], sender: sender)
        return DimmableLightDeviceType(traits: traits)
    }

    @Test("light.matterTraits.onOffTrait?.on() sends OnOff 0x0006 command 0x01 with no fields")
    func onCommand() async throws {
        let sender = RecordingSender()
        try await Self.light(sender).matterTraits.onOffTrait?.on()
        #expect(sender.invocations == [.init(trait: 0x0006, command: 0x01, fields: .struct([:]))])
    }

    @Test("typed attributes read the reported values; null and absent read as nil")
    func attributes() {
        let light = Self.light(RecordingSender(), onOff: true)
        #expect(light.matterTraits.onOffTrait?.attributes.onOff == true)
        #expect(light.matterTraits.levelControlTrait?.attributes.currentLevel == 128)
        #expect(light.matterTraits.levelControlTrait?.attributes.onLevel == nil)
        #expect(light.matterTraits.levelControlTrait?.attributes.maxLevel == nil)
        #expect(light.matterTraits.basicInformationTrait == nil)
        #expect(light.traits.contains(Matter.LevelControlTrait.self))
        #expect(!light.traits.contains(Matter.ColorControlTrait.self))
        #expect(light.missingRequiredTraits.isEmpty)
    }

    @Test("moveToLevel sends every argument by field id; nil transition time is null")
    func moveToLevel() async throws {
        let sender = RecordingSender()
        try await Self.light(sender).matterTraits.levelControlTrait?.moveToLevel(
            level: 200, transitionTime: nil, optionsMask: [.executeIfOff], optionsOverride: [.executeIfOff])
        #expect(sender.invocations == [
            .init(trait: 0x0008, command: 0x00, fields: .struct([0: .uint(200), 1: .null, 2: .uint(1), 3: .uint(1)]))
        ])
    }

    @Test("optional arguments come from optionalArgsProvider and are omitted otherwise")
    func optionalArguments() async throws {
        let sender = RecordingSender()
        let fan = Matter.FanControlTrait(data: TraitData(), sender: sender)
        try await fan.step(direction: .increase) { $0.wrap = true }
        try await fan.step(direction: .decrease)
        #expect(sender.invocations.map(\.fields) == [
            .struct([0: .enum(0), 1: .bool(true)]), .struct([0: .enum(1)]),
        ])
    }

    @Test("trait.update { $0.setMicrophoneMuted(true) } writes attribute 0x001D of the camera trait")
    func update() async throws {
        let sender = RecordingSender()
        let camera = Google.CameraAvStreamManagementTrait(data: TraitData(), sender: sender)
        try await camera.update {
            $0.setMicrophoneMuted(true)
            $0.setNightVision(.auto)
            $0.setViewport(.init(x1: 0, y1: 0, x2: 1920, y2: 1080))
        }
        #expect(sender.writes == [
            .init(trait: 0xFFF1_FC03, attributes: [
                0x001D: .bool(true), 0x0016: .enum(2),
                0x0018: .struct([0: .uint(0), 1: .uint(0), 2: .uint(1920), 3: .uint(1080)]),
            ])
        ])
    }

    @Test("invalid camera values are refused before anything is sent")
    func refusesCameraValues() async throws {
        let sender = RecordingSender()
        let camera = Google.CameraAvStreamManagementTrait(data: TraitData(), sender: sender)
        let error = await #expect(throws: ValidationError.self) {
            try await camera.update { $0.setImageRotation(90) }
        }
        #expect(error?.code == .notInAllowedSet)
        let push = Google.PushAvStreamTransportTrait(data: TraitData(), sender: sender)
        let options = Google.PushAvStreamTransportTrait.TransportOptionsStruct(
            streamUsage: .recording, tlsEndpointID: 1, url: "https://ingest.example/",
            triggerOptions: .init(
                triggerType: .motion, motionSensitivity: 3,
                motionTimeControl: .init(initialDuration: 5, augmentationDuration: 5, maxDuration: 60, blindDuration: 0),
                maxPreRollLen: 0),
            ingestMethod: .cmafIngest, containerOptions: .init(containerType: .cmaf))
        let refused = await #expect(throws: ValidationError.self) {
            try await push.modifyPushTransport(connectionID: 1, transportOptions: options)
        }
        #expect(refused?.message.contains("motionSensitivity") == true)
        #expect(sender.writes.isEmpty && sender.invocations.isEmpty)
    }

    @Test("setTransportStatus takes the connection as an optional argument")
    func setTransportStatus() async throws {
        let sender = RecordingSender()
        let push = Google.PushAvStreamTransportTrait(data: TraitData(), sender: sender)
        try await push.setTransportStatus(transportStatus: .inactive)
        try await push.setTransportStatus(transportStatus: .active) { $0.connectionID = 4 }
        #expect(sender.invocations.map(\.fields) == [.struct([1: .enum(1)]), .struct([1: .enum(0), 0: .uint(4)])])
    }

    @Test("startLiveView decodes the response")
    func startLiveView() async throws {
        let answer: Value = .struct([0: .string("v=0 answer"), 1: .string("session-1"), 2: .uint(300)])
        let sender = RecordingSender(answers: [0x00: answer])
        let view = Google.WebRtcLiveViewTrait(data: TraitData(), sender: sender)
        let response = try await view.startLiveView(offerSdp: "v=0 offer")
        #expect(response == .init(answerSdp: "v=0 answer", mediaSessionId: "session-1", liveSessionDurationSeconds: 300))
        #expect(sender.invocations.first?.fields == .struct([0: .string("v=0 offer")]))
    }

    @Test("a malformed response is an error")
    func malformedResponse() async {
        let sender = RecordingSender(answers: [0x00: .struct([0: .uint(1)])])
        let view = Google.WebRtcLiveViewTrait(data: TraitData(), sender: sender)
        let error = await #expect(throws: TraitError.self) { _ = try await view.startLiveView(offerSdp: "v=0") }
        #expect(error?.code == .malformedResponse)
    }

    @Test("a trait without a sender refuses commands")
    func noSender() async {
        let error = await #expect(throws: TraitError.self) {
            try await Matter.OnOffTrait(data: TraitData(), sender: nil).toggle()
        }
        #expect(error?.code == .noSender)
    }

    @Test("vendor traits are reached through traits[...] and write like any other")
    func vendorTrait() async throws {
        let sender = RecordingSender()
        let spinner = ExampleOrganization.SpinnerDeviceType(
            traits: TraitCollection([0xFFF2_FC00: TraitData(attributes: [0x0000: .uint(1200)])], sender: sender))
        let trait = try #require(spinner.traits[ExampleOrganization.SpinnerTrait.self])
        #expect(trait.attributes.rpm == 1200)
        try await trait.update { $0.setRpm(1500) }
        #expect(sender.writes == [.init(trait: 0xFFF2_FC00, attributes: [0x0000: .uint(1500)])])
    }

    @Test("doorbell and camera device types expose their platform traits")
    func googleDeviceTypes() {
        let data: [TraitID: TraitData] = [
            Google.DoorbellPressTrait.traitID: TraitData(metadata: .init(sourceConnectivity: .init(
                connectivityState: .offline, dataSourceLocality: .remote))),
            Matter.BasicInformationTrait.traitID: TraitData(
                attributes: [0x0001: .string("Acme"), 0x0002: .uint(0xFFF1)],
                metadata: .init(sourceConnectivity: .init(connectivityState: .online, dataSourceLocality: .local))),
        ]
        let doorbell = GoogleDoorbellDeviceType(traits: TraitCollection(data))
        #expect(doorbell.googleTraits.doorbellPressTrait != nil)
        #expect(doorbell.matterTraits.basicInformationTrait?.attributes.vendorName == "Acme")
        #expect(doorbell.matterTraits.basicInformationTrait?.attributes.vendorID == 0xFFF1)
        #expect(doorbell.metadata.sourceConnectivity == .init(connectivityState: .partiallyOnline, dataSourceLocality: .mixed))
        let camera = GoogleCameraDeviceType(traits: TraitCollection())
        #expect(camera.missingRequiredTraits.count == 3)
    }
}

@Suite("Typed values for drivers")
struct DriverSideTypeTests {
    @Test("attributes are settable: a value is encoded by its id, nil stores null")
    func settableAttributes() {
        var attributes = Matter.LevelControlTrait.Attributes()
        attributes.currentLevel = 200
        attributes.onLevel = nil
        #expect(attributes.values == [0x0000: .uint(200), 0x0011: .null])
        #expect(attributes.currentLevel == 200 && attributes.onLevel == nil)
    }

    @Test("command arguments decode from the fields a driver receives; a wrong shape is nil")
    func commandArguments() throws {
        let fields: Value = .struct([0: .uint(200), 1: .null, 2: .uint(1), 3: .uint(0)])
        let command = try #require(Matter.LevelControlTrait.MoveToLevelCommand(value: fields))
        #expect(command.level == 200 && command.transitionTime == nil && command.optionsMask == [.executeIfOff])
        #expect(Matter.LevelControlTrait.MoveToLevelCommand.id == 0x00)
        #expect(Matter.LevelControlTrait.MoveToLevelCommand.OwnerTrait.traitID == 0x0008)
        #expect(Matter.LevelControlTrait.MoveToLevelCommand(value: .struct([0: .string("x")])) == nil)
    }

    @Test("events know their trait and id and encode their fields")
    func events() {
        let event = Matter.BooleanStateTrait.StateChangeEvent(stateValue: false)
        #expect(event.value == .struct([0: .bool(false)]))
        #expect(Matter.BooleanStateTrait.StateChangeEvent.OwnerTrait.traitID == 0x0045)
    }
}

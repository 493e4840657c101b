import HearthModel
import HearthTypes
import Testing

@Suite("Generated types")
struct GeneratedTypeTests {
    @Test("every generated trait type matches a catalog trait")
    func traitTypesMatchCatalog() {
        #expect(GeneratedTraits.all.count == Catalog.builtin.traits.count)
        for type in GeneratedTraits.all {
            #expect(Catalog.builtin.trait(type.traitID) != nil, "\(type)")
        }
    }

    @Test("enums round-trip through Value and refuse undeclared values")
    func enums() {
        for mode in Google.CameraAvStreamManagementTrait.TriStateAutoEnum.allCases {
            #expect(Google.CameraAvStreamManagementTrait.TriStateAutoEnum(value: mode.value) == mode)
        }
        #expect(Google.CameraAvStreamManagementTrait.ThreeLevelAutoEnum.auto.value == .enum(0))
        #expect(Matter.ColorControlTrait.StepModeEnum(value: .enum(2)) == nil)
    }

    @Test("structs round-trip through Value, optional fields omitted")
    func structs() {
        let options = Google.PushAvStreamTransportTrait.TransportOptionsStruct(
            streamUsage: .recording, videoStreamID: nil, tlsEndpointID: 2, url: "https://ingest.example/",
            triggerOptions: .init(triggerType: .continuous), ingestMethod: .cmafIngest,
            containerOptions: .init(containerType: .cmaf))
        #expect(Google.PushAvStreamTransportTrait.TransportOptionsStruct(value: options.value) == options)
        #expect(options.value[field: 1] == nil)
        #expect(options.value[field: 5] == .struct([0: .enum(2)]))
    }

    @Test("events carry their id and fields")
    func events() {
        let event = Matter.BooleanStateTrait.StateChangeEvent(stateValue: true)
        #expect(Matter.BooleanStateTrait.StateChangeEvent.id == 0x00)
        #expect(event.value == .struct([0: .bool(true)]))
        #expect(Google.DoorbellPressTrait.DoorbellPressedEvent(value: .null) != nil)
    }

    @Test("bitmaps keep reserved bits")
    func bitmaps() {
        let modes = Matter.DoorLockTrait.OperatingModesBitmap(value: .uint(0xFFF6))
        #expect(modes?.contains(.vacation) == true)
        #expect(modes?.rawValue == 0xFFF6)
    }
}

import Foundation
import HearthModel
import Testing

@Suite("Catalog")
struct CatalogTests {
    static let traits = Catalog.builtin.traits.values.sorted { $0.id < $1.id }

    @Test("the builtin catalog has no problems")
    func builtinIsSound() {
        #expect(Catalog.builtin.problems() == [])
    }

    @Test("covers the traits and device types of the issue")
    func coverage() {
        let names = Set(Catalog.builtin.traits.values.map(\.name))
        for name in [
            "OnOff", "LevelControl", "ColorControl", "BasicInformation", "Identify", "FanControl",
            "RelativeHumidityMeasurement", "TemperatureMeasurement", "OccupancySensing", "BooleanState", "DoorLock",
            "Thermostat", "Descriptor", "DoorbellPress", "PushAvStreamTransport", "WebRtcLiveView",
            "CameraAvStreamManagement", "Spinner",
        ] {
            #expect(names.contains(name), "missing trait \(name)")
        }
        let types = Set(Catalog.builtin.deviceTypes.values.map(\.name))
        for name in [
            "OnOffLight", "DimmableLight", "ColorTemperatureLight", "ExtendedColorLight", "OnOffPluginUnit", "Fan",
            "HumiditySensor", "TemperatureSensor", "OccupancySensor", "ContactSensor", "Speaker", "Thermostat",
            "DoorLock", "GoogleDoorbell", "GoogleCamera",
        ] {
            #expect(types.contains(name), "missing device type \(name)")
        }
    }

    @Test("Matter ids are the specification's", arguments: [
        ("OnOff", 0x0006), ("LevelControl", 0x0008), ("ColorControl", 0x0300), ("BasicInformation", 0x0028),
        ("Identify", 0x0003), ("FanControl", 0x0202), ("RelativeHumidityMeasurement", 0x0405),
        ("TemperatureMeasurement", 0x0402), ("OccupancySensing", 0x0406), ("BooleanState", 0x0045),
        ("DoorLock", 0x0101), ("Thermostat", 0x0201), ("Descriptor", 0x001D),
    ] as [(String, UInt32)])
    func matterIDs(name: String, id: UInt32) {
        #expect(Catalog.builtin.trait(TraitID(id))?.name == name)
    }

    @Test("every device type lists only traits that exist", arguments: Catalog.builtin.deviceTypes.values.sorted { $0.id < $1.id })
    func deviceTypesReferenceKnownTraits(type: DeviceTypeSchema) {
        #expect(!type.requiredTraits.isEmpty)
        for id in type.allTraits {
            #expect(Catalog.builtin.trait(id) != nil, "\(type.name) lists unknown trait \(id)")
        }
    }

    @Test("platform and vendor traits use manufacturer-specific ids", arguments: traits.filter { $0.namespace != .matter })
    func manufacturerSpecific(trait: TraitSchema) {
        #expect(Catalog.isManufacturerSpecific(trait.id))
    }

    @Test("every schema round-trips through JSON", arguments: traits)
    func schemaJSONRoundTrip(trait: TraitSchema) throws {
        let data = try JSONEncoder().encode(trait)
        #expect(try JSONDecoder().decode(TraitSchema.self, from: data) == trait)
    }

    @Test("every attribute, command, response and event field round-trips through Value", arguments: traits)
    func valueRoundTrip(trait: TraitSchema) throws {
        let validator = Validator(catalog: .builtin)
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        for attribute in trait.attributes {
            let value = SampleValues.sample(attribute.type, constraints: attribute.constraints, in: trait)
            try validator.validateReport(trait: trait.id, attributes: [attribute.id: value])
            #expect(try decoder.decode(Value.self, from: encoder.encode(value)) == value)
            if let defaultValue = attribute.defaultValue {
                try validator.validateReport(trait: trait.id, attributes: [attribute.id: defaultValue])
            }
        }
        for command in trait.commands {
            let fields = SampleValues.sample(fields: command.fields, in: trait)
            try validator.validateCommand(trait: trait.id, command: command.id, fields: fields)
            #expect(try decoder.decode(Value.self, from: encoder.encode(fields)) == fields)
            if let response = command.response.flatMap(trait.response(named:)) {
                let answer = SampleValues.sample(fields: response.fields, in: trait)
                try validator.validateResponse(trait: trait.id, command: command.id, fields: answer)
            }
        }
        for event in trait.events {
            let fields = SampleValues.sample(fields: event.fields, in: trait)
            try validator.validateEvent(trait: trait.id, event: event.id, fields: fields)
        }
    }
}

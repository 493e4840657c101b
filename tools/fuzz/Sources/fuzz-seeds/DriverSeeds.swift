import Foundation
import HearthModel
import HearthProto
import HearthTypes
import HearthWire
import SwiftProtobuf

@testable import HearthDriverKit

/// Seeds of `FuzzDriverMessage`: driver streams as `HearthDriverKit` writes them (its announcement, report,
/// event and removal messages, taken from a `Driver`'s outbox without connecting), each message behind a
/// 16-bit little-endian length.
///
/// The devices are those of the shipped vendor driver (a spinner with the vendor trait and an on/off switch,
/// a speaker that is also a dimmable light) and a lamp with a contact sensor.
enum DriverSeeds {
    static func write(_ corpus: inout Corpus) throws {
        let spinnerSchema = Catalog.builtin.trait(SchemaSeeds.spinnerID)!

        // The vendor driver: schema and devices in the first announcement, then reports and an event.
        let vendor = driver(schemas: [spinnerSchema])
        let spinner = vendor.add(spinnerDevice("spinner-1", traitID: SchemaSeeds.spinnerID, deviceTypeID: 0xFFF2_0001))
        let speaker = vendor.add(speakerLight("speaker-2"))
        let announce = vendor.store.beginSession(devicesPerAnnounce: 200).messages
        try corpus.add("vendor-announce", framed(announce))
        try spinner.report(trait: SchemaSeeds.spinnerID, [0: .uint(1200)])
        try speaker.report(trait: 0x0008, endpoint: 2, [0: .uint(200)])
        try spinner.setConnectivity(.offline, trait: SchemaSeeds.spinnerID)
        let reports = try drain(vendor)
        try corpus.add("vendor-announce-report", framed(announce + reports))
        try speaker.emit(trait: 0x0006, event: 0, fields: [:], endpoint: 1)
        try corpus.add("vendor-announce-report-event", framed(announce + reports + drain(vendor)))
        vendor.remove(["speaker-2"])
        try corpus.add("vendor-announce-remove", framed(announce + drain(vendor)))

        // A vendor trait this hub was not built with: announced with its schema.
        var unknownSchema = spinnerSchema
        unknownSchema.id = 0xFFF3_FC00
        unknownSchema.namespace = .vendor("OtherOrganization")
        let other = driver(schemas: [unknownSchema])
        let wheel = other.add(spinnerDevice("wheel-1", traitID: 0xFFF3_FC00, deviceTypeID: 0xFFF3_0001))
        let otherAnnounce = other.store.beginSession(devicesPerAnnounce: 200).messages
        try wheel.report(trait: 0xFFF3_FC00, [0: .uint(3000)])
        try corpus.add("unknown-vendor-trait", framed(otherAnnounce + drain(other)))

        // Lights: a lamp with a contact sensor in a suggested room, reported, then an attribute the schema
        // refuses (rpm over its maximum would be refused the same way).
        let lights = driver(schemas: [])
        let lamp = lights.add(lampWithSensor("lamp-1"))
        let lampAnnounce = lights.store.beginSession(devicesPerAnnounce: 200).messages
        try lamp.report(trait: 0x0006, [0: .bool(true)])
        try lamp.report(trait: 0x0045, endpoint: 2, [0: .bool(false)])
        try corpus.add("lamp-announce-report", framed(lampAnnounce + drain(lights)))
        var refused = Hearth_V1_DriverMessage()
        refused.report.traits = [
            .with {
                $0.deviceID = "lamp-1"
                $0.endpoint = 1
                $0.traitID = 0x0006
                $0.attributes = [.with { $0.id = 0; $0.value = Value.string("on").proto }]
            }
        ]
        try corpus.add("lamp-refused-report", framed(lampAnnounce + [refused]))
        var result = Hearth_V1_DriverMessage()
        result.result = .with { $0.correlationID = 7; $0.errorCode = 5; $0.errorMessage = "no" }
        var hello = Hearth_V1_DriverMessage()
        hello.hello = .with { $0.driverID = "fuzz"; $0.driverVersion = "1" }
        try corpus.add("hello-result", framed([hello, result]))
    }

    static func driver(schemas: [TraitSchema]) -> Driver {
        var configuration = Driver.Configuration(hub: .unix(path: "/nonexistent/hub.sock"), token: "fuzz")
        configuration.vendorTraitSchemas = schemas
        return Driver(configuration: configuration)
    }

    /// What the driver would send next; event times fixed, so that the seeds are the same on every run.
    static func drain(_ driver: Driver) throws -> [Hearth_V1_DriverMessage] {
        // The store hands out encoded messages (what the writer sends); the seeds edit them as messages.
        try driver.store.drain(maxTraitsPerReport: 1000, devicesPerAnnounce: 200).messages.map { bytes in
            var message = try Hearth_V1_DriverMessage(serializedBytes: bytes)
            if case .events = message.kind {
                for index in message.events.events.indices { message.events.events[index].timestampMs = 1_764_000_000_000 }
            }
            return message
        }
    }

    static func framed(_ messages: [Hearth_V1_DriverMessage]) throws -> [UInt8] {
        var out: [UInt8] = []
        for message in messages {
            let bytes: [UInt8] = try message.serializedBytes()
            precondition(bytes.count <= 0xFFFF, "a seed message over 64 KiB")
            out += [UInt8(bytes.count & 0xFF), UInt8(bytes.count >> 8)] + bytes
        }
        return out
    }

    /// As the vendor driver describes a spinner (`VendorPlan`): the vendor trait and an on/off switch.
    static func spinnerDevice(_ id: String, traitID: TraitID, deviceTypeID: DeviceTypeID) -> DeviceDescription {
        DeviceDescription(
            id: id, name: "Pottery wheel", room: "Studio", isMatterDevice: false,
            endpoints: [
                EndpointDescription(
                    deviceTypeID: deviceTypeID,
                    traits: [
                        TraitDescription(traitID: traitID, attributes: [0: .uint(0)], locality: .remote),
                        .trait(Matter.OnOffTrait.self) { $0.onOff = true },
                    ])
            ])
    }

    /// As the vendor driver describes a speaker that is also a dimmable light.
    static func speakerLight(_ id: String) -> DeviceDescription {
        DeviceDescription(
            id: id, name: "Speaker lamp", room: "Living room",
            endpoints: [
                EndpointDescription(
                    SpeakerDeviceType.self, endpoint: 1, primary: true,
                    traits: [
                        .trait(Matter.OnOffTrait.self) { $0.onOff = true },
                        .trait(Matter.LevelControlTrait.self) {
                            $0.currentLevel = 80
                            $0.minLevel = 0
                            $0.maxLevel = 254
                            $0.options = []
                            $0.onLevel = nil
                            $0.remainingTime = 0
                        },
                    ]),
                EndpointDescription(
                    DimmableLightDeviceType.self, endpoint: 2, primary: false,
                    traits: [
                        .trait(Matter.IdentifyTrait.self) {
                            $0.identifyTime = 0
                            $0.identifyType = .lightOutput
                        },
                        .trait(Matter.OnOffTrait.self) { $0.onOff = false },
                        .trait(Matter.LevelControlTrait.self) {
                            $0.currentLevel = 128
                            $0.minLevel = 1
                            $0.maxLevel = 254
                            $0.options = []
                            $0.onLevel = nil
                            $0.remainingTime = 0
                        },
                    ]),
            ])
    }

    /// An on/off light with a contact sensor on endpoint 2.
    static func lampWithSensor(_ id: String) -> DeviceDescription {
        DeviceDescription(
            id: id, name: "Reading lamp", room: "Hall",
            endpoints: [
                EndpointDescription(
                    deviceTypeID: 0x0100, endpoint: 1,
                    traits: [
                        TraitDescription(traitID: 0x0003, attributes: [0: .uint(0), 1: .enum(0)]),
                        TraitDescription(traitID: 0x0006, attributes: [0: .bool(false)]),
                    ]),
                EndpointDescription(
                    deviceTypeID: 0x0015, endpoint: 2, primary: false,
                    traits: [
                        TraitDescription(traitID: 0x0003, attributes: [0: .uint(0), 1: .enum(0)]),
                        TraitDescription(traitID: 0x0045, attributes: [0: .bool(true)]),
                    ]),
            ])
    }
}

import Foundation
import ArgumentParser
import HearthSDK

/// The endpoint of `device` that has `trait`: the one asked for, else the first (primary first).
func traitEndpoint(of device: HomeDevice, with trait: TraitSchema, asked: UInt32?) throws -> DeviceTypeCollection.Instance {
    let candidates = device.types.all.instances.filter { $0.traits.data[trait.id] != nil }
        .sorted { $0.isPrimary && !$1.isPrimary }
    if let asked {
        guard let match = candidates.first(where: { $0.endpoint == asked }) else {
            throw Failure(.notFound, "\(device.name) has no \(trait.name) on endpoint \(asked)")
        }
        return match
    }
    guard let first = candidates.first else { throw Failure(.notFound, "\(device.name) has no \(trait.name) trait") }
    return first
}

struct SetAttribute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Write an attribute: hearthctl set <device> OnOff.onTime 30")
    @OptionGroup var hub: HubOptions
    @Option(help: "The endpoint, when the device has the trait on several.") var endpoint: UInt32?
    @Argument(help: "Device id or name.") var device: String
    @Argument(help: "Trait.attribute, e.g. LevelControl.onLevel.") var attribute: String
    @Argument(help: "The value: true, 128, 21.5, text, null, an enum name…") var value: String

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let (trait, name) = try Resolve.member(attribute)
            guard let member = trait.attributes.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw Failure(.invalidArgument, "\(trait.name) has no attribute '\(name)'")
            }
            let parsed = try ValueParser.parse(value, as: member.type, nullable: member.nullable, in: trait)
            let device = try Resolve.device(device, in: try await home.devices().list())
            let instance = try traitEndpoint(of: device, with: trait, asked: endpoint)
            guard let sender = instance.traits.sender else { throw Failure(.internal, "no sender") }
            try await sender.write(trait: trait.id, attributes: [member.id: parsed])
        }
    }
}

struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call", abstract: "Run a command: hearthctl call <device> LevelControl.moveToLevel level=128")
    @OptionGroup var hub: HubOptions
    @Option(help: "The endpoint, when the device has the trait on several.") var endpoint: UInt32?
    @Argument(help: "Device id or name.") var device: String
    @Argument(help: "Trait.command, e.g. OnOff.toggle.") var command: String
    @Argument(help: "Arguments as name=value.") var arguments: [String] = []

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            let (trait, name) = try Resolve.member(command)
            guard let schema = trait.commands.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw Failure(.invalidArgument, "\(trait.name) has no command '\(name)'")
            }
            var fields: [FieldID: Value] = [:]
            for argument in arguments {
                guard let equals = argument.firstIndex(of: "=") else {
                    throw Failure(.invalidArgument, "arguments are name=value, got '\(argument)'")
                }
                let key = String(argument[..<equals])
                guard let field = schema.fields.first(where: { $0.name.caseInsensitiveCompare(key) == .orderedSame }) else {
                    throw Failure(
                        .invalidArgument,
                        "\(schema.name) has no argument '\(key)' (it takes \(schema.fields.map(\.name).joined(separator: ", ")))")
                }
                fields[field.id] = try ValueParser.parse(
                    String(argument[argument.index(after: equals)...]), as: field.type, nullable: field.nullable, in: trait)
            }
            let device = try Resolve.device(device, in: try await home.devices().list())
            let instance = try traitEndpoint(of: device, with: trait, asked: endpoint)
            guard let sender = instance.traits.sender else { throw Failure(.internal, "no sender") }
            let response = try await sender.invoke(trait: trait.id, command: schema.id, fields: .struct(fields))
            if hub.json { return try Output.json(Output.jsonValue(response)) }
            if response != .null { print(Output.text(response, type: nil, trait: trait)) }
        }
    }
}

import HearthModel
import HearthProto
import SwiftProtobuf
import HearthTypes

/// Sends a device type's trait commands and writes to the hub, which routes them to the device's driver.
struct HubSender: TraitCommandSender {
    let home: Home
    let deviceID: String
    let endpoint: UInt32

    func invoke(trait: TraitID, command: CommandID, fields: Value) async throws -> Value {
        let response = try await home.call(HomeMethods.sendCommand, .with {
            $0.deviceID = deviceID
            $0.endpoint = endpoint
            $0.traitID = trait.rawValue
            $0.commandID = command.rawValue
            $0.fields = Value.protoStruct(fields.structFields ?? [:])
        })
        return response.fields.fields.isEmpty ? .null : .struct(Value.fields(of: response.fields))
    }

    func write(trait: TraitID, attributes: [AttributeID: Value]) async throws {
        _ = try await home.call(HomeMethods.writeAttributes, .with {
            $0.deviceID = deviceID
            $0.endpoint = endpoint
            $0.traitID = trait.rawValue
            $0.attributes = attributes.sorted { $0.key < $1.key }.map { id, value in
                .with {
                    $0.id = id.rawValue
                    $0.value = value.proto
                }
            }
        })
    }

    /// Values the catalog refuses before sending are `invalidArgument`, as the hub would answer.
    func translate(_ error: any Error) -> any Error {
        if let error = error as? ValidationError { return HomeError(.invalidArgument, error.description) }
        return HomeError.from(error)
    }
}

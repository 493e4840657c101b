import HearthModel
import HearthProto

/// One change to the graph, as the engine records it before encoding.
enum GraphChange: Sendable {
    case structure(StructureRecord)
    case room(RoomRecord)
    case roomRemoved(id: String, structureID: String)
    /// A whole device; `previousStructureID` tells watchers of the old structure that it left.
    case device(DeviceRecord, previousStructureID: String?)
    case deviceRemoved(DeviceRecord)
    case trait(DeviceRecord, endpoint: UInt32, TraitRecord)
    case event(DeviceRecord, Hearth_V1_Event)
}

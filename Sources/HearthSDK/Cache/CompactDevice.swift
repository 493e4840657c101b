import HearthModel
import HearthProto
import SwiftProtobuf

/// A device as the cache holds it: the message's fields, with its types and traits in one buffer
/// (``CompactTypes``) and each trait's attributes kept encoded (``CompactAttributes``) instead of as a
/// tree of `Attribute` and `Value` messages.
///
/// A `Hearth_V1_Value` is a heap box per attribute; a listed light held about 35 of them, most of its
/// 3.4 KB. Kept encoded, a trait change is a byte copy, and the values are read only when a view asks for a
/// typed device.
struct CompactDevice: Sendable {
    var id = ""
    var driverID = ""
    var structureID = ""
    var roomID = ""
    var name = ""
    var isMatterDevice = false
    var types = CompactTypes()
    var connectivity = Hearth_V1_ConnectivityState.unknown
    var locality = Hearth_V1_DataSourceLocality.unspecified
    var revision: UInt64 = 0

    /// The message's content (the fallback path and RPC answers; attributes kept as ``CompactAttributes``
    /// keeps them).
    init(_ proto: Hearth_V1_Device) {
        (id, driverID, structureID, roomID, name) = (proto.id, proto.driverID, proto.structureID, proto.roomID, proto.name)
        isMatterDevice = proto.isMatterDevice
        types = CompactTypes(proto.types.map(CompactType.init))
        (connectivity, locality, revision) = (proto.connectivity, proto.locality, proto.revision)
    }

    init() {}

    /// Equal when nothing a user sees differs: every revision is left out.
    func sameIgnoringRevisions(_ other: CompactDevice) -> Bool {
        id == other.id && driverID == other.driverID && structureID == other.structureID && roomID == other.roomID
            && name == other.name && isMatterDevice == other.isMatterDevice && connectivity == other.connectivity
            && locality == other.locality && types.sameIgnoringRevisions(other.types)
    }

    /// The device's connectivity and locality aggregated from its traits (after a trait change).
    mutating func refreshConnectivity() {
        var aggregate = SourceConnectivity.Aggregate()
        for trait in types.allTraits {
            aggregate.add(ConnectivityState(proto: trait.connectivity), DataSourceLocality(proto: trait.locality))
        }
        connectivity = aggregate.result.connectivityState.proto
        locality = aggregate.result.dataSourceLocality.proto
    }
}

/// One device type of a cached device, as a value of its own (``CompactTypes`` holds them in the cache).
struct CompactType: Sendable, Equatable {
    var endpoint: UInt32 = 0
    var deviceTypeID: UInt32 = 0
    var primary = false
    var traits: [CompactTrait] = []

    init(_ proto: Hearth_V1_DeviceTypeInstance) {
        (endpoint, deviceTypeID, primary) = (proto.endpoint, proto.deviceTypeID, proto.primary)
        traits = proto.traits.map(CompactTrait.init)
    }

    init() {}
}

/// One trait of a cached device, its attributes encoded: a trait change as it arrives, or a trait of the
/// cache as a value of its own.
struct CompactTrait: Sendable, Equatable {
    var traitID: UInt32 = 0
    // The two enums as protobuf reads them, 32-bit numbers, placed beside 32-bit fields: a generated enum
    // takes 9 bytes and pads to 16 (56 bytes a trait, 32 this way; a watch response holds one per change).
    private(set) var connectivityNumber: Int32 = 0
    /// The attributes as ``CompactAttributes`` keeps them (id, then the value's one field, for each), in
    /// the hub's order. Each was checked once by ``ProtoReader`` on arrival, or came from swift-protobuf.
    var attributes: [UInt8] = []
    private(set) var localityNumber: Int32 = 0
    var confirmed = false
    var revision: UInt64 = 0

    var connectivity: Hearth_V1_ConnectivityState {
        get { Self.connectivity(connectivityNumber) }
        set { connectivityNumber = Int32(truncatingIfNeeded: newValue.rawValue) }
    }

    var locality: Hearth_V1_DataSourceLocality {
        get { Self.locality(localityNumber) }
        set { localityNumber = Int32(truncatingIfNeeded: newValue.rawValue) }
    }

    /// The enums from the numbers kept (here and in ``CompactTypes``).
    static func connectivity(_ number: Int32) -> Hearth_V1_ConnectivityState {
        Hearth_V1_ConnectivityState(rawValue: Int(number)) ?? .unknown
    }

    static func locality(_ number: Int32) -> Hearth_V1_DataSourceLocality {
        Hearth_V1_DataSourceLocality(rawValue: Int(number)) ?? .unspecified
    }

    /// Its own fields (all but the attributes).
    struct Fields {
        var traitID: UInt32 = 0
        var revision: UInt64 = 0
        var connectivityNumber: Int32 = 0
        var localityNumber: Int32 = 0
        var confirmed = false
    }

    var fields: Fields {
        Fields(
            traitID: traitID, revision: revision, connectivityNumber: connectivityNumber, localityNumber: localityNumber,
            confirmed: confirmed)
    }

    init(
        traitID: UInt32, attributes: [UInt8], connectivityNumber: Int32, localityNumber: Int32, confirmed: Bool,
        revision: UInt64
    ) {
        (self.traitID, self.attributes, self.connectivityNumber) = (traitID, attributes, connectivityNumber)
        (self.localityNumber, self.confirmed, self.revision) = (localityNumber, confirmed, revision)
    }

    init(_ proto: Hearth_V1_TraitState) {
        traitID = proto.traitID
        for attribute in proto.attributes {
            let value: [UInt8] = (try? attribute.value.serializedBytes()) ?? []
            value.withUnsafeBytes { CompactAttributes.append(id: attribute.id, value: $0, to: &attributes) }
        }
        (connectivity, locality, confirmed, revision) = (proto.connectivity, proto.locality, proto.confirmed, proto.revision)
    }

    init() {}

    /// Equal but perhaps for the revision.
    func sameIgnoringRevision(_ other: CompactTrait) -> Bool {
        traitID == other.traitID && connectivityNumber == other.connectivityNumber && localityNumber == other.localityNumber
            && confirmed == other.confirmed && attributes == other.attributes
    }

    /// Each attribute's id and its whole entry (id and value as kept), in order.
    func encodedAttributes() -> [(id: UInt32, entry: ArraySlice<UInt8>)] { Self.encodedAttributes(attributes[...]) }

    /// Each attribute's id and whole entry in `attributes`, in order.
    static func encodedAttributes(_ attributes: ArraySlice<UInt8>) -> [(id: UInt32, entry: ArraySlice<UInt8>)] {
        let entries = attributes.withUnsafeBytes { CompactAttributes.entries($0) }
        let base = attributes.startIndex
        return entries.map { ($0.id, attributes[base + $0.start..<base + $0.value.upperBound]) }
    }

    /// The attributes' values by id (a later duplicate wins, as in a dictionary built from the message).
    func values() -> [AttributeID: Value] { Self.values(attributes[...]) }

    /// The values of `attributes` (as ``CompactAttributes`` keeps them) by id.
    static func values(_ attributes: ArraySlice<UInt8>) -> [AttributeID: Value] {
        attributes.withUnsafeBytes { raw in
            var out: [AttributeID: Value] = [:]
            for entry in CompactAttributes.entries(raw) {
                out[AttributeID(entry.id)] = CompactAttributes.value(UnsafeRawBufferPointer(rebasing: raw[entry.value]))
            }
            return out
        }
    }

    /// Replaces the attributes with `update`'s when it carries the whole trait (every attribute held, in
    /// the same order, as the hub sends it); otherwise merges attribute by attribute.
    mutating func merge(attributesOf update: CompactTrait) {
        let covered = update.attributes.withUnsafeBytes { new in attributes.withUnsafeBytes { Self.covers(new, $0) } }
        attributes = covered ? update.attributes : Self.merged(attributes, with: update.attributes)
    }

    /// `old`'s attributes with `new`'s in place of those with the same ids, and `new`'s others after them.
    static func merged(_ old: [UInt8], with new: [UInt8]) -> [UInt8] {
        var merged = encodedAttributes(old[...])
        for attribute in encodedAttributes(new[...]) {
            if let index = merged.firstIndex(where: { $0.id == attribute.id }) {
                merged[index] = attribute
            } else {
                merged.append(attribute)
            }
        }
        var bytes: [UInt8] = []
        for (_, entry) in merged { bytes.append(contentsOf: entry) }
        return bytes
    }

    /// Whether `new` holds at least as many attributes as `old`, the first ones with the same ids in the
    /// same order (read in step, allocating nothing: this is every trait report's path).
    static func covers(_ new: UnsafeRawBufferPointer, _ old: UnsafeRawBufferPointer) -> Bool {
        var (a, b) = (0, 0)
        while let x = CompactAttributes.entry(old, at: a) {
            guard let y = CompactAttributes.entry(new, at: b), x.id == y.id else { return false }
            (a, b) = (x.value.upperBound, y.value.upperBound)
        }
        return a == old.count
    }
}

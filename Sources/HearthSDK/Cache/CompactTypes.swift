import HearthModel
import HearthProto

/// A cached device's types and their traits in one byte buffer: what a device costs the cache beyond its
/// names, one allocation instead of one per type, per trait list and per trait.
///
/// Held as arrays (``CompactType``, ``CompactTrait``), a listed device took five allocations of about 40
/// bytes of overhead each beside its attributes, and ten clients joining a 100,000-device home spent about
/// half of their CPU having the kernel zero the pages that held them. A trait change is written in place
/// when its attributes keep their length (a new level or reading usually does), spliced in otherwise.
///
/// Layout, in native byte order: each type is a 13-byte header (endpoint, device type id and the length of
/// its traits as `UInt32`, then `primary`) followed by its traits; each trait is a 25-byte header (trait id
/// and its attributes' length as `UInt32`, revision as `UInt64`, connectivity and locality as protobuf's
/// `Int32` numbers, then `confirmed`) followed by its attributes as ``CompactAttributes`` keeps them.
struct CompactTypes: Sendable, Equatable {
    /// The buffer (written only by ``Builder`` and ``update(endpoint:with:)``).
    var bytes: [UInt8] = []

    static let typeHeader = 13
    static let traitHeader = 25

    /// Where one type is, and its own fields.
    struct TypeSlot {
        var start: Int
        var endpoint: UInt32
        var deviceTypeID: UInt32
        var primary: Bool
        /// Its traits' bytes, and where the next type starts.
        var traits: Range<Int>
    }

    /// Where one trait is, and its own fields.
    struct TraitSlot {
        var start: Int
        var traitID: UInt32
        var revision: UInt64
        var connectivityNumber: Int32
        var localityNumber: Int32
        var confirmed: Bool
        /// Its attributes' bytes; the next trait starts at the end.
        var attributes: Range<Int>

        var connectivity: Hearth_V1_ConnectivityState { CompactTrait.connectivity(connectivityNumber) }
        var locality: Hearth_V1_DataSourceLocality { CompactTrait.locality(localityNumber) }
    }

    /// Slots one after another in `range` of the buffer, read as they are reached (nothing is built).
    struct Slots<Slot>: Sequence, IteratorProtocol {
        fileprivate let types: CompactTypes
        fileprivate var position: Int
        fileprivate let end: Int
        fileprivate let read: (CompactTypes, Int) -> (slot: Slot, next: Int)

        mutating func next() -> Slot? {
            guard position < end else { return nil }
            let (slot, next) = read(types, position)
            position = next
            return slot
        }
    }

    init() {}

    /// The types given as arrays (swift-protobuf's path, RPC answers and tests).
    init(_ types: [CompactType]) {
        var builder = Builder()
        for type in types {
            let start = builder.beginType()
            for trait in type.traits { builder.append(trait) }
            builder.endType(start, endpoint: type.endpoint, deviceTypeID: type.deviceTypeID, primary: type.primary)
        }
        self = builder.finished()
    }

    init(exactly source: [UInt8]) {
        bytes = [UInt8](unsafeUninitializedCapacity: source.count) { buffer, count in
            _ = buffer.initialize(from: source)
            count = source.count
        }
    }

    // MARK: Reading

    /// The type whose header starts at `start`.
    func type(at start: Int) -> TypeSlot {
        bytes.withUnsafeBytes { raw in
            let length = Int(raw.loadUnaligned(fromByteOffset: start + 8, as: UInt32.self))
            let traits = start + Self.typeHeader
            return TypeSlot(
                start: start, endpoint: raw.loadUnaligned(fromByteOffset: start, as: UInt32.self),
                deviceTypeID: raw.loadUnaligned(fromByteOffset: start + 4, as: UInt32.self),
                primary: raw[start + 12] != 0, traits: traits..<traits + length)
        }
    }

    /// The trait whose header starts at `start`.
    func trait(at start: Int) -> TraitSlot {
        bytes.withUnsafeBytes { raw in
            let length = Int(raw.loadUnaligned(fromByteOffset: start + 4, as: UInt32.self))
            let attributes = start + Self.traitHeader
            return TraitSlot(
                start: start, traitID: raw.loadUnaligned(fromByteOffset: start, as: UInt32.self),
                revision: raw.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self),
                connectivityNumber: raw.loadUnaligned(fromByteOffset: start + 16, as: Int32.self),
                localityNumber: raw.loadUnaligned(fromByteOffset: start + 20, as: Int32.self),
                confirmed: raw[start + 24] != 0, attributes: attributes..<attributes + length)
        }
    }

    /// Each type in order.
    var types: Slots<TypeSlot> {
        Slots(types: self, position: 0, end: bytes.count) { types, start in
            let slot = types.type(at: start)
            return (slot, slot.traits.upperBound)
        }
    }

    /// The traits of `type` in order.
    func traits(of type: TypeSlot) -> Slots<TraitSlot> {
        Slots(types: self, position: type.traits.lowerBound, end: type.traits.upperBound) { types, start in
            let slot = types.trait(at: start)
            return (slot, slot.attributes.upperBound)
        }
    }

    /// Every trait of every type, in order.
    var allTraits: some Sequence<TraitSlot> { types.lazy.flatMap { traits(of: $0) } }

    /// Trait `traitID` of the first type that has it, the last of the type's traits with that id (as a
    /// dictionary built from the type's traits in order keeps it).
    func firstTypesLastTrait(_ traitID: UInt32) -> TraitSlot? {
        for type in types {
            if let found = traits(of: type).reduce(nil, { $1.traitID == traitID ? $1 : $0 }) { return found }
        }
        return nil
    }

    /// A trait as a value of its own (its attributes copied).
    func compactTrait(_ slot: TraitSlot) -> CompactTrait {
        CompactTrait(
            traitID: slot.traitID, attributes: Array(bytes[slot.attributes]), connectivityNumber: slot.connectivityNumber,
            localityNumber: slot.localityNumber, confirmed: slot.confirmed, revision: slot.revision)
    }

    /// A type with its traits as values of their own.
    func compactType(_ slot: TypeSlot) -> CompactType {
        var type = CompactType()
        (type.endpoint, type.deviceTypeID, type.primary) = (slot.endpoint, slot.deviceTypeID, slot.primary)
        type.traits = traits(of: slot).map(compactTrait)
        return type
    }

    /// Every type with its traits as values of their own.
    var all: [CompactType] { types.map(compactType) }

    /// Equal but perhaps for the traits' revisions.
    func sameIgnoringRevisions(_ other: CompactTypes) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        if bytes == other.bytes { return true }
        return Self.zipTraits(self, other) { a, b in
            a.traitID == b.traitID && a.connectivityNumber == b.connectivityNumber && a.localityNumber == b.localityNumber
                && a.confirmed == b.confirmed && bytes[a.attributes] == other.bytes[b.attributes]
        }
    }

    /// Whether `a` and `b` have the same types, each with as many traits, and `same` holds for the traits
    /// taken in step.
    static func zipTraits(_ a: CompactTypes, _ b: CompactTypes, _ same: (TraitSlot, TraitSlot) -> Bool) -> Bool {
        var (x, y) = (a.types, b.types)
        while let s = x.next() {
            guard let t = y.next(), s.endpoint == t.endpoint, s.deviceTypeID == t.deviceTypeID, s.primary == t.primary
            else { return false }
            var (u, v) = (a.traits(of: s), b.traits(of: t))
            while let p = u.next() {
                guard let q = v.next(), same(p, q) else { return false }
            }
            guard v.next() == nil else { return false }
        }
        return y.next() == nil
    }
}

import HearthModel
import HearthProto
@testable import HearthSDK
import SwiftProtobuf
import Testing

/// The cache keeps a device's types and traits in one buffer; reading it must give back what was written, and
/// a trait change must land on the right trait of the right type, whatever length its attributes take.
@Suite("SDK: a device's types and traits in one buffer")
struct SDKCompactTypesTests {
    static func trait(_ id: UInt32, _ values: [Value], revision: UInt64, connectivity: Hearth_V1_ConnectivityState = .online)
        -> CompactTrait
    {
        CompactTrait(SDKWatchDecodingTests.trait(id, values, revision: revision)).with { $0.connectivity = connectivity }
    }

    static func type(_ endpoint: UInt32, _ deviceType: UInt32, primary: Bool, _ traits: [CompactTrait]) -> CompactType {
        var type = CompactType()
        (type.endpoint, type.deviceTypeID, type.primary, type.traits) = (endpoint, deviceType, primary, traits)
        return type
    }

    /// Two types, the first with three traits, the second with one, a trait id shared between them.
    static let types = [
        type(1, 0x0101, primary: true, [trait(6, [.bool(true)], revision: 1), trait(8, [.uint(10), .uint(20)], revision: 2), trait(3, [], revision: 3)]),
        type(2, 0x0302, primary: false, [trait(8, [.uint(99)], revision: 4)]),
    ]

    static func values(_ types: CompactTypes, endpoint: UInt32, trait: UInt32) -> [AttributeID: Value]? {
        types.all.first { $0.endpoint == endpoint }?.traits.first { $0.traitID == trait }?.values()
    }

    @Test("types written one after another read back as written, byte for byte and field by field")
    func roundTrip() {
        let compact = CompactTypes(Self.types)
        #expect(compact.all == Self.types)
        #expect(compact.types.map(\.endpoint) == [1, 2])
        #expect(compact.types.map { compact.traits(of: $0).map(\.traitID) } == [[6, 8, 3], [8]])
        #expect(compact.allTraits.map(\.traitID) == [6, 8, 3, 8])
        #expect(CompactTypes(compact.all) == compact)
        #expect(CompactTypes().all.isEmpty && CompactTypes([]).bytes.isEmpty)
    }

    @Test("a trait is found in the first type that has it, the last of that type's traits with its id")
    func lookup() throws {
        let compact = CompactTypes(Self.types)
        let eight = try #require(compact.firstTypesLastTrait(8))
        #expect(compact.compactTrait(eight) == Self.types[0].traits[1])
        #expect(compact.firstTypesLastTrait(77) == nil && CompactTypes().firstTypesLastTrait(8) == nil)
        let twice = CompactTypes([Self.type(3, 1, primary: true, [Self.trait(6, [.uint(1)], revision: 1), Self.trait(6, [.uint(2)], revision: 2)])])
        #expect(try twice.compactTrait(#require(twice.firstTypesLastTrait(6))).revision == 2)
    }

    @Test("a change of the same length is written in place; one of another length is spliced, and what follows still reads")
    func update() {
        var compact = CompactTypes(Self.types)
        let size = compact.bytes.count
        // Same length: a new level on endpoint 1's trait 8.
        guard case .changed(placement: false) = compact.update(endpoint: 1, with: Self.trait(8, [.uint(11), .uint(21)], revision: 5)) else {
            Issue.record("not changed")
            return
        }
        #expect(compact.bytes.count == size)
        #expect(Self.values(compact, endpoint: 1, trait: 8) == [AttributeID(0): .uint(11), AttributeID(3): .uint(21)])
        #expect(Self.values(compact, endpoint: 2, trait: 8) == [AttributeID(0): .uint(99)], "the other type's trait 8 is untouched")
        // Longer: a string where a number was; the type after it still reads.
        guard case .changed = compact.update(endpoint: 1, with: Self.trait(6, [.string("a longer value than a bool")], revision: 6)) else {
            Issue.record("not changed")
            return
        }
        #expect(compact.bytes.count > size)
        #expect(Self.values(compact, endpoint: 1, trait: 6) == [AttributeID(0): .string("a longer value than a bool")])
        #expect(compact.all[1] == Self.types[1])
        #expect(compact.all[0].traits.map(\.revision) == [6, 5, 3])
        // Shorter again; an update without attributes keeps them (it names none) and takes its revision.
        guard case .changed = compact.update(endpoint: 1, with: Self.trait(6, [.bool(false)], revision: 7)) else {
            Issue.record("not changed")
            return
        }
        #expect(compact.bytes.count == size && compact.all[1] == Self.types[1])
        #expect(compact.update(endpoint: 2, with: Self.trait(8, [], revision: 7)).isChanged)
        // An update that names only some attributes merges them (id 0 becomes 1; id 3 stays).
        let partial = CompactTrait(.with { $0.traitID = 8; $0.revision = 8; $0.connectivity = .online; $0.attributes = [.with { $0.id = 0; $0.value = Value.uint(1).proto }] })
        #expect(compact.update(endpoint: 1, with: partial).isChanged)
        #expect(Self.values(compact, endpoint: 1, trait: 8) == [AttributeID(0): .uint(1), AttributeID(3): .uint(21)])
        #expect(compact.all[1].traits[0].values() == [AttributeID(0): .uint(99)] && compact.all[1].traits[0].revision == 7)
    }

    @Test("a repeat changes nothing; an unknown endpoint or trait is absent; a new connectivity says so")
    func outcomes() {
        var compact = CompactTypes(Self.types)
        let same = Self.trait(8, [.uint(10), .uint(20)], revision: 2)
        #expect(!compact.update(endpoint: 1, with: same).isChanged)
        #expect(compact == CompactTypes(Self.types))
        #expect(compact.update(endpoint: 9, with: same).isAbsent)
        #expect(compact.update(endpoint: 1, with: Self.trait(77, [], revision: 9)).isAbsent)
        guard case .changed(placement: true) = compact.update(endpoint: 2, with: Self.trait(8, [.uint(99)], revision: 4, connectivity: .offline))
        else {
            Issue.record("no placement change")
            return
        }
        // A trait without attributes takes a new revision in place (nothing to copy).
        var empty = CompactTypes(Self.types)
        #expect(empty.update(endpoint: 1, with: Self.trait(3, [], revision: 30)).isChanged)
        #expect(empty.all[0].traits[2].revision == 30 && empty.all[0].traits[2].attributes.isEmpty && empty.all[1] == Self.types[1])
        // Only the revision differs: the same to a user.
        var bumped = CompactTypes(Self.types)
        _ = bumped.update(endpoint: 1, with: Self.trait(8, [.uint(10), .uint(20)], revision: 50))
        #expect(bumped != CompactTypes(Self.types) && bumped.sameIgnoringRevisions(CompactTypes(Self.types)))
        #expect(!compact.sameIgnoringRevisions(CompactTypes(Self.types)))
    }

    @Test("an attribute whose length is padded is kept as protobuf writes it: the same state again is no change")
    func paddedLength() throws {
        let canonical: [UInt8] = try SDKWatchDecodingTests.trait(8, [.uint(5)], revision: 2).serializedBytes()
        // The attribute entry is key 0x12, length, body; pad the length (one byte) to two bytes.
        let at = try #require(canonical.firstIndex(of: 0x12))
        var padded = canonical
        padded.replaceSubrange(at + 1...at + 1, with: [canonical[at + 1] | 0x80, 0x00])
        let fromPadded = try padded.withUnsafeBytes { try CompactTrait(protoBytes: $0) }
        let fromCanonical = try canonical.withUnsafeBytes { try CompactTrait(protoBytes: $0) }
        #expect(fromPadded == fromCanonical && fromPadded.values() == [AttributeID(0): .uint(5)])
        var builder = CompactTypes.Builder()
        let start = builder.beginType()
        try padded.withUnsafeBytes { try builder.appendTrait(protoBytes: $0) }
        builder.endType(start, endpoint: 1, deviceTypeID: 0x0101, primary: true)
        var compact = builder.finished()
        #expect(compact == CompactTypes([Self.type(1, 0x0101, primary: true, [fromCanonical])]))
        #expect(!compact.update(endpoint: 1, with: fromCanonical).isChanged)
    }

    @Test("a device's connectivity is aggregated from the traits in the buffer")
    func connectivity() {
        var device = CompactDevice()
        device.types = CompactTypes(Self.types)
        device.refreshConnectivity()
        #expect(device.connectivity == .online)
        _ = device.types.update(endpoint: 2, with: Self.trait(8, [.uint(99)], revision: 4, connectivity: .offline))
        device.refreshConnectivity()
        #expect(device.connectivity == .partiallyOnline)
    }
}

extension CompactTypes.TraitUpdate {
    var isChanged: Bool { if case .changed = self { true } else { false } }
    var isAbsent: Bool { if case .absent = self { true } else { false } }
}

extension CompactTrait {
    func with(_ change: (inout CompactTrait) -> Void) -> CompactTrait {
        var copy = self
        change(&copy)
        return copy
    }
}

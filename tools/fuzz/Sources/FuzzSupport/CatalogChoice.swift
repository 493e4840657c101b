public import HearthModel

extension Catalog {
    /// The builtin traits' ids in ascending order, so that a fuzzer's number can name one of them.
    public static let sortedBuiltinTraitIDs: [TraitID] = builtin.traits.keys.sorted()

    /// `id` if the builtin catalog knows it, else one of its traits chosen by `id`: most numbers name no
    /// trait, and a fuzzer spends its time better on the traits the hub checks values against.
    public static func knownTrait(_ id: UInt32) -> TraitID {
        let trait = TraitID(id)
        if builtin.trait(trait) != nil { return trait }
        return sortedBuiltinTraitIDs[Int(id % UInt32(sortedBuiltinTraitIDs.count))]
    }
}

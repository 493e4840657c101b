public import HearthModel

/// The traits of one device type (one Matter endpoint), by id, with the sender their commands go through.
///
/// `collection[Matter.LevelControlTrait.self]` gives a typed trait or nil; this is also how vendor traits are
/// reached: `traits[ExampleOrganization.SpinnerTrait.self]`.
public struct TraitCollection: Sendable, Hashable {
    /// Trait data by trait id.
    public var data: [TraitID: TraitData]
    /// The sender given to every trait taken from the collection.
    public let sender: (any TraitCommandSender)?

    public init(_ data: [TraitID: TraitData] = [:], sender: (any TraitCommandSender)? = nil) {
        self.data = data
        self.sender = sender
    }

    /// The trait of type `T`, or nil when the device type lacks it.
    public subscript<T: Trait>(_ type: T.Type) -> T? {
        data[T.traitID].map { T(data: $0, sender: sender) }
    }

    /// Whether the device type carries a trait of type `T`.
    public func contains<T: Trait>(_ type: T.Type) -> Bool {
        data[T.traitID] != nil
    }

    /// The ids of the traits present.
    public var traitIDs: Set<TraitID> { Set(data.keys) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.data == rhs.data }
    public func hash(into hasher: inout Hasher) { hasher.combine(data) }
}

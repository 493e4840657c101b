/// The rooms simulated devices are suggested into, so that a demo home has believable rooms.
///
/// A suggestion only counts the first time the hub sees a device; after that the room is the user's.
public struct RoomPlan: Sendable {
    /// The room names, in the order devices are spread over them.
    public var rooms: [String]

    /// A plan over `rooms`.
    public init(rooms: [String] = RoomPlan.home) { self.rooms = rooms }

    /// Rooms of a family home.
    public static let home = ["Living room", "Kitchen", "Bedroom", "Office", "Hallway", "Bathroom", "Garage"]

    /// The room for the device at `index` (0-based) of a driver.
    public func room(for index: Int, using generator: inout some RandomNumberGenerator) -> String? {
        guard !rooms.isEmpty else { return nil }
        // Spread the first devices one per room, then at random, so that small homes use many rooms.
        return index < rooms.count ? rooms[index] : rooms.randomElement(using: &generator)
    }
}

/// Gives simulated devices believable names that do not repeat within a room ("Desk lamp", "Desk lamp 2").
///
/// Names depend only on the devices named before, so the first devices keep their names when `--devices`
/// grows.
public struct DeviceNames: Sendable {
    private var used: [String: Int] = [:]

    /// An empty book.
    public init() {}

    /// `base`, or `base N` when the room already has N-1 devices called `base`.
    public mutating func name(_ base: String, in room: String?) -> String {
        let key = "\(room ?? "")\u{0}\(base)"
        let count = used[key, default: 0] + 1
        used[key] = count
        return count == 1 ? base : "\(base) \(count)"
    }
}

extension RandomNumberGenerator {
    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    /// One of `choices`, each as likely as its weight.
    public mutating func weighted<T>(_ choices: [(T, Double)]) -> T {
        let total = choices.reduce(0) { $0 + $1.1 }
        var pick = Double.random(in: 0..<total, using: &self)
        for (choice, weight) in choices {
            if pick < weight { return choice }
            pick -= weight
        }
        return choices[choices.count - 1].0
    }
}

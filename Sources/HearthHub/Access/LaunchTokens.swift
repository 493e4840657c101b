import Synchronization

/// Driver tokens made by the hub for one launch of a supervised plugin: valid from the launch until the
/// process ends, so a token read from a dead plugin's environment is worth nothing.
final class LaunchTokens: Sendable {
    private let tokens = Mutex<[String: String]>([:])  // token → driver id

    /// A fresh random token (256 bits, hex) bound to `driver`.
    func issue(for driver: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let token = "launch-" + (0..<4).map { _ in
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        tokens.withLock { $0[token] = driver }
        return token
    }

    func revoke(_ token: String) { tokens.withLock { _ = $0.removeValue(forKey: token) } }

    func principal(for token: String) -> Principal? {
        tokens.withLock { $0[token] }.map { .driver(id: $0) }
    }
}

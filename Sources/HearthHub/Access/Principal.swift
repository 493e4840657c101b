import Foundation
/// Who is calling: a user of a client token, or a driver.
public enum Principal: Sendable, Hashable {
    case user(UserAccess)
    case driver(id: String)

    /// The driver id of a driver principal.
    public var driverID: String? {
        if case .driver(let id) = self { id } else { nil }
    }
}

/// What a client token lets its user do.
public struct UserAccess: Sendable, Hashable {
    public enum Role: String, Sendable, Hashable, Codable {
        /// Everything, including creating structures.
        case admin
        /// Reads, commands, and room and device metadata in its structures.
        case member
        /// Reads only.
        case viewer
    }

    public var user: String
    public var role: Role
    /// The structures the user may see; nil: all (and unassigned devices).
    public var structures: Set<String>?

    public init(user: String, role: Role, structures: Set<String>?) {
        self.user = user
        self.role = role
        self.structures = structures
    }

    /// Whether the user may see things in `structureID` (nil: an unassigned device).
    public func canSee(structure structureID: String?) -> Bool {
        guard let structures else { return true }
        guard let structureID else { return false }
        return structures.contains(structureID)
    }

    var canWrite: Bool { role != .viewer }
}

/// Maps bearer tokens to principals. Built from the hub's configuration.
public struct AccessControl: Sendable {
    private var tokens: [String: Principal]
    /// Tokens made for one launch of a supervised driver; shared with the supervisor.
    let launchTokens: LaunchTokens

    /// - Parameter tokens: token → principal.
    public init(tokens: [String: Principal]) {
        self.tokens = tokens
        launchTokens = LaunchTokens()
    }

    /// The principal of an `authorization` header value (`Bearer <token>`).
    ///
    /// - Throws: ``HubError`` `.unauthenticated` when the header is missing, malformed or the token unknown
    ///   (the message never echoes the token).
    public func authenticate(authorization: String?) throws(HubError) -> Principal {
        guard let authorization, !authorization.isEmpty else {
            throw HubError(.unauthenticated, "missing 'authorization: Bearer <token>' metadata")
        }
        if let token = Self.plainBearerToken(authorization), let principal = tokens[token] {
            return principal
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw HubError(.unauthenticated, "the authorization metadata must be 'Bearer <token>'")
        }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        guard let principal = tokens[token] ?? launchTokens.principal(for: token) else {
            throw HubError(.unauthenticated, "unknown token")
        }
        return principal
    }

    /// The token of `Bearer <token>` when the value is exactly that (any case of `Bearer`, one space, a
    /// token of visible ASCII): what every client sends, read without splitting, lowercasing and
    /// Foundation's trimming, which together were a few per cent of the hub's CPU per command. Nil for
    /// anything else, which the general reading handles.
    static func plainBearerToken(_ authorization: String) -> String? {
        let bytes = authorization.utf8
        guard bytes.count > 7 else { return nil }
        var index = bytes.startIndex
        for expected in "bearer".utf8 {
            // Letters only: setting 0x20 lowers a capital and leaves a small letter alone.
            guard bytes[index] | 0x20 == expected else { return nil }
            index = bytes.index(after: index)
        }
        guard bytes[index] == UInt8(ascii: " ") else { return nil }
        index = bytes.index(after: index)
        guard bytes[index...].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return String(authorization[index...])
    }
}

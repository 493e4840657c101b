import Foundation
import HearthHub

/// The hub's JSON config file (example: deploy/hearth-hub.json). Every key is optional; flags override it.
struct HubConfigFile: Decodable {
    struct StructureEntry: Decodable {
        var id: String
        var name: String
    }

    struct ClientEntry: Decodable {
        var token: String
        var user: String
        var role: UserAccess.Role
        /// Structure ids the user may see; `["*"]` or absent: all.
        var structures: [String]?
    }

    struct DriverEntry: Decodable {
        var id: String
        var token: String
    }

    /// A driver plugin the hub starts and supervises.
    struct PluginEntry: Decodable {
        var id: String
        /// A path, or a bare name looked up next to `hearth-hub` and then on PATH.
        var executable: String
        var arguments: [String]?
        var environment: [String: String]?
    }

    var listen: String?
    var socket: String?
    var metricsListen: String?
    var dataDir: String?
    var structures: [StructureEntry]?
    var clients: [ClientEntry]?
    var drivers: [DriverEntry]?
    var plugins: [PluginEntry]?
    var retainedChanges: Int?
    /// The memory the retained changes may hold, in MiB.
    var retainedChangesMiB: Int?
    var progressIntervalMs: Int?
    var commandTimeoutMs: Int?
    /// Event loops serving connections; absent or 0: one per CPU the process may run on.
    var eventLoops: Int?
    /// How long trait states gather before the newest of each is saved (no fsync on that path).
    var stateSaveIntervalMs: Int?
    /// How long devices encoded for snapshots are kept after the last snapshot, for clients joining soon
    /// after; 0 empties them as each burst of snapshots ends.
    var snapshotCacheLingerMs: Int?
    var limits: LimitsEntry?
    var tls: TLSEntry?
    var dashboard: DashboardEntry?

    init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case listen, socket, structures, clients, drivers, plugins, limits, tls, dashboard
        case dataDir = "data_dir"
        case metricsListen = "metrics_listen"
        case retainedChanges = "retained_changes"
        case retainedChangesMiB = "retained_changes_mib"
        case progressIntervalMs = "progress_interval_ms"
        case commandTimeoutMs = "command_timeout_ms"
        case eventLoops = "event_loops"
        case stateSaveIntervalMs = "state_save_interval_ms"
        case snapshotCacheLingerMs = "snapshot_cache_linger_ms"
    }

    static func load(_ path: String) throws -> HubConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigError("cannot read config file \(path): \(error.localizedDescription)")
        }
        // A misspelt key would otherwise be ignored without a word.
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            let known = Set(CodingKeys.allCases.map(\.rawValue))
            if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                throw ConfigError(
                    "config file \(path): unknown key '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
            }
            let knownLimits = Set(LimitsEntry.CodingKeys.allCases.map(\.rawValue))
            if let limits = object["limits"] as? [String: Any],
                let unknown = limits.keys.sorted().first(where: { !knownLimits.contains($0) })
            {
                throw ConfigError(
                    "config file \(path): unknown key 'limits.\(unknown)' (known: \(knownLimits.sorted().joined(separator: ", ")))")
            }
            let knownDashboard = Set(DashboardEntry.CodingKeys.allCases.map(\.rawValue))
            if let dashboard = object["dashboard"] as? [String: Any],
                let unknown = dashboard.keys.sorted().first(where: { !knownDashboard.contains($0) })
            {
                throw ConfigError(
                    "config file \(path): unknown key 'dashboard.\(unknown)' (known: \(knownDashboard.sorted().joined(separator: ", ")))")
            }
            let knownTLS = Set(TLSEntry.CodingKeys.allCases.map(\.rawValue))
            if let tls = object["tls"] as? [String: Any],
                let unknown = tls.keys.sorted().first(where: { !knownTLS.contains($0) })
            {
                throw ConfigError(
                    "config file \(path): unknown key 'tls.\(unknown)' (known: \(knownTLS.sorted().joined(separator: ", ")))")
            }
        }
        do {
            return try JSONDecoder().decode(HubConfigFile.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw ConfigError("config file \(path) is not valid JSON: \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, context) {
            throw ConfigError("config file \(path): missing '\(key.stringValue)' at \(Self.path(context))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw ConfigError("config file \(path): wrong value at \(Self.path(context)): \(context.debugDescription)")
        }
    }

    /// Token → principal; duplicate tokens are an error.
    func tokens() throws -> [String: Principal] {
        var tokens: [String: Principal] = [:]
        for client in clients ?? [] {
            let all = client.structures == nil || client.structures == ["*"]
            let principal = Principal.user(
                UserAccess(user: client.user, role: client.role, structures: all ? nil : Set(client.structures ?? [])))
            guard tokens.updateValue(principal, forKey: client.token) == nil else {
                throw ConfigError("config: a token is used twice (user \(client.user))")
            }
        }
        for driver in drivers ?? [] {
            guard tokens.updateValue(.driver(id: driver.id), forKey: driver.token) == nil else {
                throw ConfigError("config: a token is used twice (driver \(driver.id))")
            }
        }
        return tokens
    }

    /// The plugins with their executables resolved; an id used twice or an executable not found is an error.
    func pluginSpecs(hubExecutable: URL) throws -> [PluginSpec] {
        var seen = Set<String>()
        return try (plugins ?? []).map { entry in
            guard !entry.id.isEmpty, !entry.id.contains("/") else {
                throw ConfigError("config: plugin id '\(entry.id)' must be non-empty without '/'")
            }
            guard seen.insert(entry.id).inserted else { throw ConfigError("config: plugin '\(entry.id)' is listed twice") }
            guard let path = Self.resolve(entry.executable, besides: hubExecutable) else {
                throw ConfigError(
                    "config: plugin '\(entry.id)': executable '\(entry.executable)' not found (next to hearth-hub or on PATH)")
            }
            return PluginSpec(
                id: entry.id, executable: path, arguments: entry.arguments ?? [], environment: entry.environment ?? [:])
        }
    }

    private static func resolve(_ executable: String, besides hub: URL) -> String? {
        let files = FileManager.default
        if executable.contains("/") {
            return files.isExecutableFile(atPath: executable) ? URL(fileURLWithPath: executable).path : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let folders = [hub.deletingLastPathComponent().path] + path.split(separator: ":").map(String.init)
        return folders.map { URL(fileURLWithPath: $0).appendingPathComponent(executable).path }
            .first { files.isExecutableFile(atPath: $0) }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}

struct ConfigError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

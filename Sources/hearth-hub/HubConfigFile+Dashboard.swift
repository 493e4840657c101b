import Foundation
import HearthHub

extension HubConfigFile {
    /// The `dashboard` section: `{"enabled": true, "directory": "dashboard", "allowed_origins": ["https://…"]}`.
    struct DashboardEntry: Decodable {
        var enabled: Bool?
        var directory: String?
        var allowedOrigins: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case enabled, directory
            case allowedOrigins = "allowed_origins"
        }

        /// Applies the section; `directoryFlag` (`--dashboard-dir`) wins over `directory`.
        func apply(to configuration: inout Hub.Configuration.Dashboard, directoryFlag: String?) throws {
            if let enabled { configuration.enabled = enabled }
            for origin in allowedOrigins ?? [] where origin != "*" && !origin.contains("://") {
                throw ConfigError("config: dashboard.allowed_origins entries are scheme://host[:port] or *, got '\(origin)'")
            }
            configuration.allowedOrigins = allowedOrigins ?? []
            if let path = directoryFlag ?? directory {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw ConfigError("dashboard directory \(path) is not a folder")
                }
                configuration.directory = URL(fileURLWithPath: path, isDirectory: true)
            }
        }
    }
}

import Foundation
import HearthDriverKit
import HearthSDK
import HearthTesting
import HearthWire
import Testing

/// The files under deploy/ agree with the programs: the hub accepts the shipped config, its tokens work, and
/// the systemd units start executables this package builds, with the paths and variables they read.
@Suite("The deploy files")
struct DeployFilesTests {
    static let deploy = DemoHomeTests.root.appendingPathComponent("deploy")

    static func config() throws -> [String: Any] {
        let data = try Data(contentsOf: deploy.appendingPathComponent("hearth-hub.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The value of `key=` in a systemd unit (the first one).
    static func setting(_ key: String, in unit: String) throws -> String {
        let text = try String(contentsOf: deploy.appendingPathComponent(unit), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("\(key)=") }, "\(unit) has no \(key)=")
        return String(line.dropFirst(key.count + 1))
    }

    @Test("hearth-hub.json starts the hub (paths overridden): its admin and guest tokens work and its plugin runs")
    func shippedConfig() async throws {
        let config = try Self.config()
        let clients = try #require(config["clients"] as? [[String: Any]])
        let admin = try #require(clients.first { $0["role"] as? String == "admin" }?["token"] as? String)
        let guest = try #require(clients.first { $0["role"] as? String == "viewer" }?["token"] as? String)
        let plugins = try #require(config["plugins"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        try await withTemporaryDirectory { dir in
            let hub = try await HubProcess(
                directory: dir.appendingPathComponent("data"), config: Self.deploy.appendingPathComponent("hearth-hub.json"),
                arguments: ["--socket", dir.appendingPathComponent("hub.sock").path, "--metrics-listen", "127.0.0.1:0"])
            defer { hub.terminate() }
            let home = try Home.connect(to: "127.0.0.1:\(hub.port)", token: admin)
            defer { home.close() }
            #expect(try await home.structures().list().map(\.name) == ["Home"])
            let running = try await eventually { () -> [String]? in
                let drivers = try await home.drivers().filter { $0.processState == .running && $0.isConnected }.map(\.id)
                return Set(drivers) == Set(plugins) ? drivers : nil
            }
            #expect(!running.isEmpty)
            let viewer = try Home.connect(to: "unix:\(dir.appendingPathComponent("hub.sock").path)", token: guest)
            defer { viewer.close() }
            #expect(try await viewer.structures().list().map(\.id) == ["home"])
        }
    }

    @Test("hearth-hub.tls.json starts the hub with a self-signed certificate a Home can trust")
    func tlsConfig() async throws {
        try await withTemporaryDirectory { dir in
            let data = dir.appendingPathComponent("data")
            let hub = try await HubProcess(
                directory: data, config: Self.deploy.appendingPathComponent("hearth-hub.tls.json"),
                arguments: ["--socket", dir.appendingPathComponent("hub.sock").path])
            defer { hub.terminate() }
            var configuration = Home.Configuration()
            configuration.tls = WireClient.TLS(trustRoots: .file(data.appendingPathComponent("tls/self-signed.pem").path))
            let home = try Home.connect(to: "127.0.0.1:\(hub.port)", token: "CHANGE-ME-admin-token", configuration: configuration)
            defer { home.close() }
            #expect(try await home.structures().list().map(\.name) == ["Home"])
        }
    }

    @Test("the systemd units start binaries this package builds, with the config, state and socket paths of hearth-hub.json")
    func units() throws {
        let config = try Self.config()
        let hubStart = try Self.setting("ExecStart", in: "hearth-hub.service").split(separator: " ").map(String.init)
        #expect(hubStart.first == "/usr/local/bin/hearth-hub")
        #expect(hubStart.dropFirst().elementsEqual(["--config", "/etc/hearth/hearth-hub.json"]))
        #expect(FileManager.default.isExecutableFile(atPath: builtProduct("hearth-hub").path))
        // StateDirectory= and RuntimeDirectory= make /var/lib/<name> and /run/<name>: where the config points.
        #expect(config["data_dir"] as? String == "/var/lib/\(try Self.setting("StateDirectory", in: "hearth-hub.service"))")
        let runtime = try Self.setting("RuntimeDirectory", in: "hearth-hub.service")
        #expect((config["socket"] as? String)?.hasPrefix("/run/\(runtime)/") == true)

        // hearth-driver@<id> runs hearth-driver-<id>: every standalone driver of the config must exist.
        #expect(try Self.setting("ExecStart", in: "hearth-driver@.service") == "/usr/local/bin/hearth-driver-%i $DRIVER_ARGS")
        let drivers = try #require(config["drivers"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        let plugins = try #require(config["plugins"] as? [[String: Any]]).compactMap { $0["executable"] as? String }
        #expect(!drivers.isEmpty)
        for executable in drivers.map({ "hearth-driver-\($0)" }) + plugins {
            #expect(FileManager.default.isExecutableFile(atPath: builtProduct(executable).path), "\(executable) is not built")
        }
        // The variables the template's comment tells people to set are the ones drivers read.
        let template = try String(contentsOf: Self.deploy.appendingPathComponent("hearth-driver@.service"), encoding: .utf8)
        for variable in [Driver.Configuration.hubVariable, Driver.Configuration.tokenVariable] {
            #expect(template.contains("\(variable)="), "the template does not mention \(variable)")
        }
    }
}

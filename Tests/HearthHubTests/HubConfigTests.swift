import Foundation
import HearthTesting
import Testing

@Suite("hearth-hub's config file")
struct HubConfigTests {
    /// Runs `hearth-hub --config` on `json`; returns its exit status (nil if it kept running, i.e. accepted the config) and its output.
    static func run(config json: String, in dir: URL) async throws -> (Int32?, String) {
        let config = dir.appendingPathComponent("hub.json")
        try json.write(to: config, atomically: true, encoding: .utf8)
        let outcome = try await ChildProcessIO.run(
            HubProcess.executable,
            ["--config", config.path, "--data-dir", dir.appendingPathComponent("data").path, "--listen", "127.0.0.1:0"],
            timeout: .seconds(30))
        return (outcome.status, outcome.output)
    }

    @Test(
        "a bad config is refused at start with a message naming the problem",
        arguments: [
            (#"{"retainedChanges": 5}"#, "unknown key 'retainedChanges'"),
            (#"{"retained_changes": 0}"#, "retained_changes must be at least 1"),
            (#"{"event_loops": -1}"#, "event_loops must be 0 (one per allowed CPU) to 1024"),
            (#"{"state_save_interval_ms": 0}"#, "state_save_interval_ms must be 1 to 60000"),
            (#"{"snapshot_cache_linger_ms": -1}"#, "snapshot_cache_linger_ms must be 0 to 600000"),
            (#"{"clients": [{"token": "t", "user": "u"}]}"#, "missing 'role'"),
            (#"{"clients": [{"token": "t", "user": "a", "role": "admin"}, {"token": "t", "user": "b", "role": "viewer"}]}"#, "a token is used twice"),
            ("{not json", "not valid JSON"),
            (#"{"plugins": [{"id": "lights", "executable": "no-such-driver"}]}"#, "executable 'no-such-driver' not found"),
            (#"{"plugins": [{"id": "a", "executable": "/bin/true"}, {"id": "a", "executable": "/bin/true"}]}"#, "plugin 'a' is listed twice"),
            (#"{"plugins": [{"id": "a/b", "executable": "/bin/true"}]}"#, "must be non-empty without '/'"),
            (#"{"limits": {"max_json_dept": 8}}"#, "unknown key 'limits.max_json_dept'"),
            (#"{"limits": {"partial_message_bytes_per_server": 0}}"#, "partial_message_bytes_per_server must be positive"),
            (#"{"limits": {"max_type_nesting": 100}}"#, "max_type_nesting must be at most 32"),
            (#"{"tls": {"cert": "c.pem"}}"#, "tls needs both 'cert' and 'key'"),
            (#"{"tls": {"client_auth": "required"}}"#, "needs tls.client_ca"),
            (#"{"tls": {"client_auth": "sometimes", "client_ca": "ca.pem"}}"#, "must be none, optional or required"),
            (#"{"tls": {"certificate": "c.pem"}}"#, "unknown key 'tls.certificate'"),
        ])
    func refusesBadConfig(json: String, message: String) async throws {
        try await withTemporaryDirectory { dir in
            let (status, errors) = try await Self.run(config: json, in: dir)
            #expect(status != nil && status != 0, "hearth-hub accepted the config or exited 0")
            #expect(errors.contains(message), "output: \(errors)")
        }
    }
}

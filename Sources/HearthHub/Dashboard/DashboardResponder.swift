import Foundation
import HearthWire
import Synchronization

/// What the hub answers on HTTP/1.1 besides gRPC-Web: the dashboard's files and, for a signed-in page, the
/// metrics it charts.
///
/// - `GET /` and `GET /<file>`: the dashboard, embedded at build time (`tools/dashboard/embed.py`) or, with
///   ``Hub/Configuration/Dashboard/directory``, read from disk on each request (for working on it).
/// - `GET /metrics` with `authorization: Bearer <token>` (any client token): the Prometheus page, so that the
///   dashboard charts the hub from its own origin. The open page on `metrics_listen` is unchanged.
/// - anything else: 404, or 405 for a method other than GET or HEAD.
struct DashboardResponder: Sendable {
    let directory: URL?
    let enabled: Bool
    let access: AccessControl
    let metrics: @Sendable () async -> String

    /// Headers on every dashboard file: no caching across hub upgrades, no framing, no sniffing, scripts only
    /// from the hub itself.
    static let fileHeaders: [(name: String, value: String)] = [
        ("cache-control", "no-cache"),
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("content-security-policy",
         "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
    ]

    func respond(_ request: WebRequest) async -> WebResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return WebResponse(status: 405, headers: [("allow", "GET, HEAD")], body: Array("only GET and HEAD\n".utf8))
        }
        if request.path == "/metrics" { return await metricsPage(request) }
        guard enabled else { return .text(404, "not found: the dashboard is off in this hub's config\n") }
        let name = request.path == "/" ? "index.html" : String(request.path.dropFirst())
        guard Self.isPlainName(name), let body = file(named: name) else {
            return .text(404, "not found: \(request.path)\n")
        }
        return WebResponse(status: 200, headers: [("content-type", Self.contentType(of: name))] + Self.fileHeaders, body: body)
    }

    private func metricsPage(_ request: WebRequest) async -> WebResponse {
        do {
            _ = try access.authenticate(authorization: request.header("authorization"))
        } catch {
            var response = WebResponse.text(401, "\(error.message)\n")
            response.headers.append(("www-authenticate", "Bearer"))
            return response
        }
        return WebResponse(
            status: 200, headers: [("content-type", "text/plain; version=0.0.4; charset=utf-8"), ("cache-control", "no-store")],
            body: Array(await metrics().utf8))
    }

    private func file(named name: String) -> [UInt8]? {
        if let directory {
            return FileManager.default.contents(atPath: directory.appendingPathComponent(name).path).map { [UInt8]($0) }
        }
        return DashboardAssets.files[name].flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
    }

    /// One file name of letters, digits, `.`, `-` and `_`, not starting with a dot: no path leaves the folder.
    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: ".") else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json": "application/json"
        case "ico": "image/x-icon"
        default: "application/octet-stream"
        }
    }
}

/// The hub, for the server's responder, which is made before the hub it belongs to; weak, so that the hub
/// (which owns the server, which owns the responder) is not kept alive by it.
final class HubReference: Sendable {
    private let reference = Mutex(Weak())
    private struct Weak { weak var hub: Hub? }

    var hub: Hub? {
        get { reference.withLock { $0.hub } }
        set { reference.withLock { $0.hub = newValue } }
    }
}

import Foundation

/// Cross-origin rules for gRPC-Web (the Fetch standard's CORS protocol). Pure.
///
/// A page may call the server when it comes from the server itself (its `Origin` names the request's `Host`) or
/// from a configured origin. gRPC-Web requests are never "simple" (their content type is not a form type), so a
/// browser asks with a preflight `OPTIONS` first; a call that carries a foreign `Origin` anyway is refused
/// before it runs, so that no page can make the hub act for it.
struct CORSPolicy: Sendable {
    let allowedOrigins: [String]

    /// Whether a request from `origin` (nil: not from a browser page) to `host` may run.
    func allows(origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        if allowedOrigins.contains("*") || allowedOrigins.contains(origin) { return true }
        guard let host, let schemeEnd = origin.range(of: "://") else { return false }
        return origin[schemeEnd.upperBound...].lowercased() == host.lowercased()
    }

    /// Headers for a response to an allowed cross-origin request; none for same-origin or non-browser ones.
    func responseHeaders(origin: String?) -> [(name: String, value: String)] {
        guard let origin else { return [] }
        return [
            ("access-control-allow-origin", origin),
            ("vary", "origin"),
            ("access-control-expose-headers", "grpc-status, grpc-message, grpc-encoding, grpc-accept-encoding"),
        ]
    }

    /// The answer to a preflight: 204 with what the browser asked for, or 403 for an origin not allowed.
    func preflight(origin: String?, host: String?, requestedHeaders: String?) -> WebResponse {
        guard let origin, allows(origin: origin, host: host) else {
            return .text(403, "origin \(origin ?? "(none)") may not call this server\n")
        }
        var headers = responseHeaders(origin: origin)
        headers.append(("access-control-allow-methods", "POST, GET, OPTIONS"))
        headers.append(
            ("access-control-allow-headers",
             requestedHeaders ?? "authorization, content-type, grpc-timeout, x-grpc-web, x-user-agent"))
        headers.append(("access-control-max-age", "600"))
        return WebResponse(status: 204, headers: headers)
    }
}

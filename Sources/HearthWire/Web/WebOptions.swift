/// An HTTP/1.1 request a ``WireServer`` hands to its ``WireServer/Configuration/Web/responder``: anything on an
/// HTTP/1.1 connection that is not a gRPC-Web call, such as a browser asking for a page.
public struct WebRequest: Sendable {
    /// The method, such as `GET`.
    public var method: String
    /// The path without the query, such as `/index.html`.
    public var path: String
    /// The query after `?`, if any.
    public var query: String?
    /// The header fields in order, names lower-cased.
    public var headers: [(name: String, value: String)]
    /// The peer's address.
    public var peer: String

    /// Creates a request.
    public init(method: String, path: String, query: String? = nil, headers: [(name: String, value: String)] = [], peer: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.peer = peer
    }

    /// The first value of a header (the name in lower case), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// The answer to a ``WebRequest``.
public struct WebResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields besides `content-length`, which the server sets.
    public var headers: [(name: String, value: String)]
    /// The body; a `HEAD` request gets its length and no bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String) -> WebResponse {
        WebResponse(status: status, headers: [("content-type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }
}

extension WireServer.Configuration {
    /// HTTP/1.1 beside HTTP/2 on the same listeners: gRPC-Web calls for browsers, and other requests for a
    /// responder (pages, files).
    ///
    /// With this set, a connection whose first bytes are not the HTTP/2 preface is served as HTTP/1.1 (on TLS
    /// listeners: when ALPN picks `http/1.1`). gRPC-Web calls (`application/grpc-web`, `+proto`, `-text`) reach
    /// the same handlers, call gate, limits and deadlines as native calls; on HTTP/2 they are served whether or
    /// not this is set.
    public struct Web: Sendable {
        /// Origins (`scheme://host[:port]`) whose pages may call across origins; `*` allows any. Requests from
        /// the server's own origin need no entry. Default: none.
        public var allowedOrigins: [String]
        /// Answers HTTP/1.1 requests that are not gRPC-Web; nil answers 404. Runs off the event loop.
        public var responder: (@Sendable (WebRequest) async -> WebResponse)?

        /// Creates the settings.
        public init(
            allowedOrigins: [String] = [], responder: (@Sendable (WebRequest) async -> WebResponse)? = nil
        ) {
            self.allowedOrigins = allowedOrigins
            self.responder = responder
        }
    }
}

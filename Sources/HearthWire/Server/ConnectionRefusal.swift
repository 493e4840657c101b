/// A connection a server closed before HTTP/2 started on it: its TLS handshake failed or took too long, or
/// its client did not negotiate ALPN `h2`. Reported to ``WireServerObserver/connectionRefused(_:)``.
public struct ConnectionRefusal: Sendable, Hashable, CustomStringConvertible {
    /// Why, as a code that can grow.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case notTLS = "not_tls"
            case handshakeFailed = "handshake_failed"
            case handshakeTimeout = "handshake_timeout"
            case certificate = "certificate"
            case applicationProtocol = "alpn"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The peer sent something that is not TLS (plaintext HTTP/2, say) to a TLS port, or got it.
        public static let notTLS = Reason(.notTLS)
        /// The TLS handshake failed for another reason (no common version or cipher, a closed connection).
        public static let handshakeFailed = Reason(.handshakeFailed)
        /// The handshake did not complete within ``WireServer/TLS/handshakeTimeout``.
        public static let handshakeTimeout = Reason(.handshakeTimeout)
        /// A certificate was missing, did not verify, or was refused.
        public static let certificate = Reason(.certificate)
        /// The handshake completed without ALPN `h2`.
        public static let applicationProtocol = Reason(.applicationProtocol)

        /// A short stable name for logs and metric labels (`not_tls`, `alpn`, …).
        public var description: String { value.rawValue }
    }

    /// The peer's address.
    public var peer: String
    /// Why the connection was closed.
    public var reason: Reason
    /// A sentence saying what happened.
    public var message: String

    public init(peer: String, reason: Reason, message: String) {
        self.peer = peer
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(peer): \(message)" }
}

/// Connection-level events of a ``WireServer``, for the program above it to log or count.
///
/// Called on a connection's event loop: implementations must be quick and must not block. The default
/// implementation of every method does nothing.
public protocol WireServerObserver: Sendable {
    /// A connection was closed before HTTP/2 started on it; the server goes on serving others.
    func connectionRefused(_ refusal: ConnectionRefusal)
}

extension WireServerObserver {
    public func connectionRefused(_ refusal: ConnectionRefusal) {}
}

/// The observer that ignores everything: ``WireServer/Configuration/observer``'s default.
public struct NoWireServerObserver: WireServerObserver {
    public init() {}
}

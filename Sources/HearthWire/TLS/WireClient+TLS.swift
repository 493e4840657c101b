extension WireClient {
    /// TLS for a client: whom to trust, what to present, which name to check, and ALPN `h2`.
    ///
    /// ```swift
    /// var configuration = WireClient.Configuration()
    /// configuration.tls = WireClient.TLS(trustRoots: .file("/etc/hearth/hub-cert.pem"))
    /// let client = WireClient(target: .tcp(host: "hub.local", port: 7070), configuration: configuration)
    /// ```
    public struct TLS: Sendable, Hashable {
        /// The certificates a server's chain must lead to.
        public enum TrustRoots: Sendable, Hashable {
            /// The system's store (`/etc/ssl/certs` on Debian).
            case system
            /// The certificates in a PEM file (say, a hub's self-signed certificate).
            case file(String)
        }

        /// Whom to trust. Default ``TrustRoots/system``.
        public var trustRoots: TrustRoots = .system
        /// A PEM certificate chain to present when the server asks (mutual TLS); needs ``privateKey``.
        public var certificateChain: String?
        /// The PEM private key of ``certificateChain``.
        public var privateKey: String?
        /// The name sent in SNI and checked against the server's certificate. Default nil: the target's host;
        /// an IP address is then checked against the certificate's IP addresses and not sent in SNI.
        public var serverName: String?
        /// Whether the server's certificate must name the host. Default true; false still checks the chain.
        public var verifyHostname = true

        /// TLS trusting `trustRoots`.
        public init(trustRoots: TrustRoots = .system) {
            self.trustRoots = trustRoots
        }
    }
}

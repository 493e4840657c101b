extension WireServer {
    /// TLS for a server's TCP listeners: a certificate chain and a private key from PEM files, ALPN `h2`
    /// only, TLS 1.2 or later, and optionally client certificates (mutual TLS).
    ///
    /// Unix-domain sockets stay plaintext. The files are read when the server starts
    /// (``WireServer/run()``) and again on ``WireServer/reloadTLS()``.
    ///
    /// ```swift
    /// var configuration = WireServer.Configuration()
    /// configuration.tls = WireServer.TLS(certificateChain: "/etc/hearth/cert.pem", privateKey: "/etc/hearth/key.pem")
    /// configuration.tls?.clientAuthentication = .required(trustRoots: "/etc/hearth/drivers-ca.pem")
    /// ```
    public struct TLS: Sendable, Hashable {
        /// Whether clients present certificates, and which roots they must chain to.
        public enum ClientAuthentication: Sendable, Hashable {
            /// Clients are not asked for a certificate (the default).
            case none
            /// Clients may present a certificate; one that is presented must chain to a root in the PEM file.
            case optional(trustRoots: String)
            /// Clients must present a certificate that chains to a root in the PEM file; others are refused
            /// during the handshake.
            case required(trustRoots: String)
        }

        /// The PEM file with the server's certificate first, then any intermediates.
        public var certificateChain: String
        /// The PEM file with the certificate's private key.
        public var privateKey: String
        /// Client certificates. Default ``ClientAuthentication/none``.
        public var clientAuthentication: ClientAuthentication = .none
        /// How long a new connection has to complete its handshake before it is closed. Default 10 s.
        public var handshakeTimeout: Duration = .seconds(10)

        /// Reads the files as ``WireServer/run()`` would, and reports the first problem; keeps nothing.
        /// - Throws: ``WireTLSError`` naming the file.
        public func validate() throws(WireTLSError) {
            _ = try TLSContextFactory.serverContext(self)
        }

        /// TLS from a certificate chain and a key.
        /// - Parameters:
        ///   - certificateChain: the PEM file with the certificate and its intermediates.
        ///   - privateKey: the PEM file with the private key.
        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    /// Re-reads the certificate chain, key and trust roots of ``Configuration/tls``; connections accepted from
    /// now on use them, connections already open keep the ones they started with.
    ///
    /// If a file cannot be read or parsed, the server keeps the context it had and the error is thrown: a bad
    /// file never leaves the server without a certificate. Also loads them the first time, so that a caller can
    /// report a bad file before ``run()``. Does nothing for a server without TLS.
    /// - Throws: ``WireTLSError`` naming the file.
    public func reloadTLS() throws(WireTLSError) {
        try tlsContext?.reload()
    }
}

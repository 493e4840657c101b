public import Foundation
public import HearthWire

/// TLS for a hub's TCP listener: certificate files, or a self-signed certificate the hub makes, and whether
/// clients and drivers present certificates. The Unix socket stays plaintext.
///
/// ```swift
/// configuration.tls = HubTLS()                              // self-signed, made into the data directory
/// configuration.tls = HubTLS(certificateChain: "/etc/hearth/cert.pem", privateKey: "/etc/hearth/key.pem")
/// configuration.tls?.clientAuthentication = .required(trustRoots: "/etc/hearth/drivers-ca.pem")
/// ```
public struct HubTLS: Sendable, Hashable {
    /// The PEM certificate chain. Nil (with ``privateKey`` nil): a self-signed certificate in the data
    /// directory, made on the first start (``SelfSignedCertificate``).
    public var certificateChain: String?
    /// The PEM private key of ``certificateChain``.
    public var privateKey: String?
    /// Client certificates (mutual TLS, for drivers on other machines). Default none.
    public var clientAuthentication: WireServer.TLS.ClientAuthentication = .none

    /// TLS from files, or (both nil) from a self-signed certificate.
    public init(certificateChain: String? = nil, privateKey: String? = nil) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// The server's settings, making the self-signed certificate first if this asks for one.
    /// - Parameters:
    ///   - dataDirectory: where a self-signed certificate lives.
    ///   - listen: the hub's listeners; their TCP hosts are named in a self-signed certificate.
    /// - Returns: the settings, and the self-signed certificate if one is used.
    func resolve(dataDirectory: URL, listen: [WireServer.BindTarget]) throws -> (WireServer.TLS, SelfSignedCertificate?) {
        var selfSigned: SelfSignedCertificate?
        let chain: String
        let key: String
        switch (certificateChain, privateKey) {
        case (let c?, let k?):
            (chain, key) = (c, k)
        case (nil, nil):
            var names = [ProcessInfo.processInfo.hostName, "localhost", "127.0.0.1", "::1"]
            for case .tcp(let host, _) in listen { names.append(host) }
            let made = try SelfSignedCertificate.ensure(in: dataDirectory, names: names)
            (chain, key) = (made.certificatePath, made.privateKeyPath)
            selfSigned = made
        default:
            throw HubError(.invalidArgument, "tls: give both a certificate and a key file, or neither for a self-signed certificate")
        }
        var tls = WireServer.TLS(certificateChain: chain, privateKey: key)
        tls.clientAuthentication = clientAuthentication
        return (tls, selfSigned)
    }
}

import HearthHub
import HearthWire

/// The `tls` object of the config file: TLS on the TCP listener (the Unix socket stays plaintext).
///
/// ```json
/// "tls": { "cert": "/etc/hearth/cert.pem", "key": "/etc/hearth/key.pem",
///          "client_ca": "/etc/hearth/drivers-ca.pem", "client_auth": "optional" }
/// ```
/// `"tls": {}` asks for a self-signed certificate, made once into the data directory.
struct TLSEntry: Decodable {
    var cert: String?
    var key: String?
    var clientCA: String?
    var clientAuth: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case cert, key
        case clientCA = "client_ca"
        case clientAuth = "client_auth"
    }

    /// The hub's TLS settings; a missing half of cert/key, an unknown `client_auth`, or `optional`/`required`
    /// without `client_ca` is an error.
    func settings() throws -> HubTLS {
        guard (cert == nil) == (key == nil) else {
            throw ConfigError("config: tls needs both 'cert' and 'key', or neither (a self-signed certificate)")
        }
        var tls = HubTLS(certificateChain: cert, privateKey: key)
        switch (clientAuth ?? (clientCA == nil ? "none" : "required"), clientCA) {
        case ("none", _):
            tls.clientAuthentication = .none
        case ("optional", let roots?):
            tls.clientAuthentication = .optional(trustRoots: roots)
        case ("required", let roots?):
            tls.clientAuthentication = .required(trustRoots: roots)
        case ("optional", nil), ("required", nil):
            throw ConfigError("config: tls.client_auth '\(clientAuth ?? "")' needs tls.client_ca (a PEM file of trusted roots)")
        case (let other, _):
            throw ConfigError("config: tls.client_auth must be none, optional or required, got '\(other)'")
        }
        return tls
    }
}

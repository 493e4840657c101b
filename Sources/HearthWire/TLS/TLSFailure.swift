import NIOSSL

/// Turns swift-nio-ssl's and BoringSSL's errors into a reason and a sentence a person can act on.
///
/// Pure: the handshake handlers call it; tests call it with errors built by hand.
enum TLSFailure {
    /// Which side is describing the failure: the words differ ("the client" or "the server").
    enum Side { case server, client }

    /// Reads BoringSSL's reason strings (`WRONG_VERSION_NUMBER`, `CERTIFICATE_VERIFY_FAILED`, …) out of
    /// an error's description and says what they mean for this side.
    static func describe(_ error: any Error, side: Side) -> (reason: ConnectionRefusal.Reason, message: String) {
        let text = "\(error)"
        func has(_ words: String...) -> Bool { words.contains { text.contains($0) } }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return (.certificate, "the server's certificate does not name the host connected to (\(text))")
        }
        if has("WRONG_VERSION_NUMBER", "HTTP_REQUEST", "HTTPS_PROXY_REQUEST", "PACKET_LENGTH_TOO_LONG", "NOT_TLS") {
            return side == .server
                ? (.notTLS, "the client did not speak TLS (plaintext HTTP/2 to a TLS port?)")
                : (.notTLS, "the server did not answer with TLS (a plaintext port? connect without TLS)")
        }
        if has("UNSUPPORTED_PROTOCOL", "PROTOCOL_VERSION") {
            return (.handshakeFailed, "no common TLS version: TLS 1.2 or later is required (\(text))")
        }
        if has("NO_APPLICATION_PROTOCOL") {
            return (.applicationProtocol, "no common application protocol: ALPN h2 is required (\(text))")
        }
        switch side {
        case .server:
            if has("PEER_DID_NOT_RETURN_A_CERTIFICATE", "CERTIFICATE_REQUIRED") {
                return (.certificate, "the client presented no certificate and one is required")
            }
            if has("CERTIFICATE_VERIFY_FAILED", "CERTIFICATE", "UNKNOWN_CA") {
                return (.certificate, "the client's certificate was refused (\(text))")
            }
        case .client:
            if has("CERTIFICATE_REQUIRED", "HANDSHAKE_FAILURE") {
                return (.certificate, "the server wants a client certificate, and none (or none it trusts) was presented (\(text))")
            }
            if has("CERTIFICATE_VERIFY_FAILED") {
                return (.certificate, "the server's certificate does not verify against the trust roots (\(text))")
            }
            if has("BAD_CERTIFICATE", "UNKNOWN_CA", "CERTIFICATE") {
                return (.certificate, "the server refused our client certificate (\(text))")
            }
        }
        if let error = error as? NIOSSLError, case .uncleanShutdown = error {
            return side == .server
                ? (.handshakeFailed, "the client closed the connection during the TLS handshake")
                : (.handshakeFailed, "the server closed the connection during the TLS handshake (not a TLS port?)")
        }
        return (.handshakeFailed, "TLS handshake failed (\(text))")
    }
}

import HearthWire
import Logging

/// Logs the connections the hub's server closed before HTTP/2 started (failed TLS handshakes, plaintext on
/// the TLS port, ALPN other than `h2`), one line each with the peer and the reason.
struct HubConnectionLog: WireServerObserver {
    let logger: Logger

    func connectionRefused(_ refusal: ConnectionRefusal) {
        logger.info(
            "hub.tls.refused",
            metadata: [
                "hub.peer": "\(refusal.peer)", "hub.reason": "\(refusal.reason)", "hub.message": "\(refusal.message)",
            ])
    }
}

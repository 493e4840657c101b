import HearthWire
import Logging

extension Hub {
    /// Re-reads the TLS certificate, key and client trust roots (what `SIGHUP` does to `hearth-hub`): new
    /// connections use them, open connections keep theirs. A bad file leaves the current certificate in use.
    /// - Throws: ``WireTLSError`` naming the file; nothing changed then.
    public func reloadTLS() throws {
        guard let tls = tlsSettings else {
            logger.info("hub.tls.reload_skipped: TLS is off")
            return
        }
        do {
            try server.reloadTLS()
        } catch {
            logger.info("hub.tls.reload_failed", metadata: ["hub.error": "\(error)"])
            throw error
        }
        Self.logCertificate(tls.certificateChain, event: "hub.tls.reloaded", logger: logger)
    }

    static func logCertificate(_ path: String, event: Logger.Message, logger: Logger) {
        let fingerprint = (try? SelfSignedCertificate.fingerprint(ofPEMFile: path)) ?? "unreadable"
        logger.info(event, metadata: ["hub.tls.certificate": "\(path)", "hub.tls.sha256": "\(fingerprint)"])
    }
}

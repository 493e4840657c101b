import NIOSSL
import Synchronization

/// The TLS context a server hands each new connection, and its reload.
///
/// A connection takes the context current when it is accepted and keeps it for its life; ``reload()`` swaps
/// the context for later connections only, and keeps the old one when the new files are bad.
final class ServerTLSContext: Sendable {
    let configuration: WireServer.TLS
    /// ALPN offers `http/1.1` beside `h2` (the server serves gRPC-Web and pages too).
    let http1: Bool
    private let current = Mutex<NIOSSLContext?>(nil)

    init(configuration: WireServer.TLS, http1: Bool = false) {
        self.configuration = configuration
        self.http1 = http1
    }

    /// Reads the files again and makes the result current.
    /// - Throws: ``WireTLSError`` naming the file; the previous context stays current.
    func reload() throws(WireTLSError) {
        let context = try TLSContextFactory.serverContext(configuration, http1: http1)
        current.withLock { $0 = context }
    }

    /// The context for a new connection, loading it the first time.
    func context() throws(WireTLSError) -> NIOSSLContext {
        if let context = current.withLock({ $0 }) { return context }
        try reload()
        return current.withLock { $0 }!
    }
}

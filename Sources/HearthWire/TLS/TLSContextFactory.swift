import Foundation
import NIOSSL

/// Builds swift-nio-ssl contexts from ``WireServer/TLS`` and ``WireClient/TLS``: TLS 1.2 or later, ALPN `h2`
/// only. Files are read here, one at a time, so that an error names the file that is wrong.
enum TLSContextFactory {
    /// The only application protocol HearthWire speaks over TLS.
    static let alpn = "h2"

    /// The protocols a server picks from, in its order of preference, when it also serves HTTP/1.1
    /// (``WireServer/Configuration/web``). HTTP/1.1 first: a browser offers both and then gets the pages and
    /// gRPC-Web over HTTP/1.1, which serves them all; gRPC clients offer only `h2` and get it.
    static let alpnWithHTTP1 = ["http/1.1", alpn]

    static func serverContext(_ tls: WireServer.TLS, http1: Bool = false) throws(WireTLSError) -> NIOSSLContext {
        let chain = try certificates(at: tls.certificateChain, role: "certificate chain")
        let key = try privateKey(at: tls.privateKey)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = http1 ? alpnWithHTTP1 : [alpn]
        switch tls.clientAuthentication {
        case .none:
            configuration.certificateVerification = .none
        case .optional(let roots):
            configuration.trustRoots = .certificates(try certificates(at: roots, role: "client trust roots"))
            configuration.certificateVerification = .optionalVerification
        case .required(let roots):
            configuration.trustRoots = .certificates(try certificates(at: roots, role: "client trust roots"))
            configuration.certificateVerification = .noHostnameVerification
        }
        return try context(configuration, files: "\(tls.certificateChain) and \(tls.privateKey)")
    }

    static func clientContext(_ tls: WireClient.TLS) throws(WireTLSError) -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = [alpn]
        configuration.certificateVerification = tls.verifyHostname ? .fullVerification : .noHostnameVerification
        switch tls.trustRoots {
        case .system: configuration.trustRoots = .default
        case .file(let path): configuration.trustRoots = .certificates(try certificates(at: path, role: "trust roots"))
        }
        switch (tls.certificateChain, tls.privateKey) {
        case (nil, nil):
            break
        case (let chain?, let key?):
            configuration.certificateChain = try certificates(at: chain, role: "client certificate").map {
                .certificate($0)
            }
            configuration.privateKey = .privateKey(try privateKey(at: key))
        default:
            throw WireTLSError(
                code: .invalidConfiguration, message: "a client certificate needs both a certificate file and a key file")
        }
        return try context(configuration, files: [tls.certificateChain, tls.privateKey].compactMap { $0 }.joined(separator: " and "))
    }

    private static func context(_ configuration: TLSConfiguration, files: String) throws(WireTLSError) -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            // Most often a key that does not belong to the certificate.
            throw WireTLSError(
                code: .invalidPrivateKey, message: "cannot use \(files.isEmpty ? "the TLS settings" : files) for TLS",
                cause: "\(error)")
        }
    }

    static func certificates(at path: String, role: String) throws(WireTLSError) -> [NIOSSLCertificate] {
        let bytes = try read(path, role: role)
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
        } catch {
            throw WireTLSError(
                code: .invalidCertificate, message: "\(role) file \(path) holds no valid PEM certificate", path: path,
                cause: "\(error)")
        }
        guard !certificates.isEmpty else {
            throw WireTLSError(
                code: .invalidCertificate, message: "\(role) file \(path) holds no PEM certificate", path: path)
        }
        return certificates
    }

    static func privateKey(at path: String) throws(WireTLSError) -> NIOSSLPrivateKey {
        let bytes = try read(path, role: "private key")
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            throw WireTLSError(
                code: .invalidPrivateKey, message: "private key file \(path) holds no valid PEM private key", path: path,
                cause: "\(error)")
        }
    }

    private static func read(_ path: String, role: String) throws(WireTLSError) -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw WireTLSError(
                code: .unreadableFile, message: "cannot read \(role) file \(path)", path: path,
                cause: (error as NSError).localizedDescription)
        }
    }
}

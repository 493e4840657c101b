import Crypto
public import Foundation
#if canImport(Glibc)
import Glibc  // inet_pton
#endif
import SwiftASN1
import X509

/// The certificate a hub makes for itself when its config asks for TLS without certificate files: ECDSA
/// P-256, self-signed, valid for ten years, naming the host and the addresses it listens on. Made once into
/// the data directory and reused by later starts (remove the two files to make a new one).
public struct SelfSignedCertificate: Sendable {
    /// The PEM certificate; clients trust it with `--tls-ca` (or `HEARTH_TLS_CA`).
    public var certificatePath: String
    /// The PEM private key (mode 0600).
    public var privateKeyPath: String
    /// Whether this start made it (false: an earlier one did).
    public var created: Bool

    /// The files under `directory/tls/`, made now if they are not there yet.
    /// - Parameters:
    ///   - directory: the hub's data directory.
    ///   - names: host names and IP addresses the certificate names (its subject alternative names); empty or
    ///     unspecified addresses (`0.0.0.0`, `::`) are skipped.
    /// - Throws: a file system error, or one from swift-certificates.
    public static func ensure(in directory: URL, names: [String]) throws -> SelfSignedCertificate {
        let folder = directory.appendingPathComponent("tls")
        let certificate = folder.appendingPathComponent("self-signed.pem").path
        let key = folder.appendingPathComponent("self-signed-key.pem").path
        let files = FileManager.default
        if files.fileExists(atPath: certificate), files.fileExists(atPath: key) {
            return SelfSignedCertificate(certificatePath: certificate, privateKeyPath: key, created: false)
        }
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        let privateKey = P256.Signing.PrivateKey()
        let pem = try make(key: privateKey, names: names)
        // The key first, readable by the hub's user only; a certificate without its key is never left behind.
        guard files.createFile(atPath: key, contents: Data(privateKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: key]) }
        try Data(pem.utf8).write(to: URL(fileURLWithPath: certificate), options: .atomic)
        return SelfSignedCertificate(certificatePath: certificate, privateKeyPath: key, created: true)
    }

    static func make(key: P256.Signing.PrivateKey, names: [String]) throws -> String {
        var alternatives: [GeneralName] = []
        var seen = Set<String>()
        for name in names where !name.isEmpty && seen.insert(name).inserted {
            if let ip = ipBytes(name) {
                guard ip.contains(where: { $0 != 0 }) else { continue }  // 0.0.0.0 and :: name nothing
                alternatives.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(ip))))
            } else {
                alternatives.append(.dnsName(name))
            }
        }
        let subject = try DistinguishedName {
            OrganizationName("Hearth")
            CommonName(names.first(where: { !$0.isEmpty && ipBytes($0) == nil }) ?? "hearth-hub")
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                // Its own root: clients put this very certificate in their trust roots, and BoringSSL and
                // OpenSSL accept a self-signed anchor only if it may sign certificates (as `openssl req -x509`
                // makes them). Path length 0: it can sign nothing but itself.
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternatives)
            },
            issuerPrivateKey: .init(key))
        return try certificate.serializeAsPEM().pemString
    }

    /// The bytes of an IPv4 or IPv6 literal, or nil for a name.
    static func ipBytes(_ text: String) -> [UInt8]? {
        // Plain byte buffers, not in_addr/in6_addr: with member import visibility those C structs' initializers
        // belong to whichever module's headers declared them first (NIO's C shims in a clean build).
        for (family, count) in [(AF_INET, 4), (AF_INET6, 16)] {
            var bytes = [UInt8](repeating: 0, count: count)
            if bytes.withUnsafeMutableBytes({ inet_pton(family, text, $0.baseAddress) }) == 1 { return bytes }
        }
        return nil
    }

    /// The SHA-256 fingerprint of the first certificate in a PEM file, as colon-separated hex (what
    /// `openssl x509 -fingerprint -sha256` prints), for logs and for pinning by hand.
    public static func fingerprint(ofPEMFile path: String) throws -> String {
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        let document = try PEMDocument(pemString: pem)
        return SHA256.hash(data: document.derBytes).map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}

import Crypto
public import Foundation
import SwiftASN1
import X509

/// Certificates for TLS tests, made at test time (no private key is ever committed): a CA, a server
/// certificate for `localhost` and `127.0.0.1`, and a client certificate, all ECDSA P-256, written as PEM
/// files into a directory the caller owns (and removes).
///
/// ```swift
/// let certificates = try TestCertificates(directory: dir)
/// configuration.tls = WireServer.TLS(certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey)
/// ```
public struct TestCertificates: Sendable {
    /// The folder holding the files.
    public let directory: URL
    /// The CA's certificate (trust roots for both sides).
    public var caCertificate: String { path("ca.pem") }
    /// The server's certificate, signed by the CA.
    public var serverCertificate: String { path("server.pem") }
    /// The server's private key.
    public var serverKey: String { path("server-key.pem") }
    /// A client certificate, signed by the CA.
    public var clientCertificate: String { path("client.pem") }
    /// The client certificate's private key.
    public var clientKey: String { path("client-key.pem") }
    /// A second, unrelated CA (a client trusting only it refuses the server).
    public var otherCACertificate: String { path("other-ca.pem") }

    private let caKey: P256.Signing.PrivateKey
    private let caName: DistinguishedName
    private let otherKey: P256.Signing.PrivateKey
    private let otherName: DistinguishedName

    /// Makes a CA, a server and a client certificate, and an unrelated CA, into `directory`.
    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        caKey = P256.Signing.PrivateKey()
        caName = try DistinguishedName { CommonName("Hearth test CA") }
        otherKey = P256.Signing.PrivateKey()
        otherName = try DistinguishedName { CommonName("Unrelated CA") }
        try Self.write(try Self.authority(key: caKey, name: caName), to: path("ca.pem"))
        try Self.write(try Self.authority(key: otherKey, name: otherName), to: path("other-ca.pem"))
        try issueServer(commonName: "hearth test server")
        try issue(
            commonName: "hearth test client", names: [], usage: .clientAuth, certificate: clientCertificate,
            key: clientKey)
    }

    /// Replaces the server's certificate and key with new ones named `commonName`, signed by the CA or, with
    /// `byOtherCA`, by the unrelated one (a reload test tells old and new apart by which roots accept them).
    public func issueServer(commonName: String, byOtherCA: Bool = false) throws {
        try issue(
            commonName: commonName, byOtherCA: byOtherCA, names: [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))],
            usage: .serverAuth, certificate: serverCertificate, key: serverKey)
    }

    private func issue(
        commonName: String, byOtherCA: Bool = false, names: [GeneralName], usage: ExtendedKeyUsage.Usage, certificate: String, key: String
    ) throws {
        let leafKey = P256.Signing.PrivateKey()
        let now = Date()
        let subject = try DistinguishedName { CommonName(commonName) }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([usage])
            if !names.isEmpty { SubjectAlternativeNames(names) }
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: byOtherCA ? otherName : caName, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions, issuerPrivateKey: .init(byOtherCA ? otherKey : caKey))
        try Self.write(leaf, to: certificate)
        try Data(leafKey.pemRepresentation.utf8).write(to: URL(fileURLWithPath: key))
    }

    private static func authority(key: P256.Signing.PrivateKey, name: DistinguishedName) throws -> Certificate {
        let now = Date()
        return try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key))
    }

    private static func write(_ certificate: Certificate, to path: String) throws {
        try Data(try certificate.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

/// Runs `body` with a fresh temporary directory, removed afterwards whatever happens.
public func withTemporaryTLSDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

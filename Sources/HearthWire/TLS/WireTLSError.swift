/// Why TLS could not be set up: a file that cannot be read or parsed, or settings that contradict each other.
///
/// Thrown by ``WireServer/reloadTLS()`` and by ``WireServer/run()`` before it binds, and reported (as
/// UNAVAILABLE) by a ``WireClient`` whose TLS settings cannot be loaded. The message names the file.
public struct WireTLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a code that can grow.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case unreadableFile = "unreadable file"
            case invalidCertificate = "invalid certificate"
            case invalidPrivateKey = "invalid private key"
            case invalidConfiguration = "invalid configuration"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A configured file does not exist or cannot be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// A file holds no PEM certificate, or one that does not parse.
        public static let invalidCertificate = Code(.invalidCertificate)
        /// A file holds no PEM private key, or one that does not parse or does not match the certificate.
        public static let invalidPrivateKey = Code(.invalidPrivateKey)
        /// The settings contradict each other (say, client certificates required without trust roots).
        public static let invalidConfiguration = Code(.invalidConfiguration)

        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for a log or a terminal; names the file concerned.
    public var message: String
    /// The file concerned, if one is.
    public var path: String?
    /// The underlying error's description (BoringSSL's, or the file system's), if any.
    public var cause: String?

    /// Creates an error.
    public init(code: Code, message: String, path: String? = nil, cause: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }

    public var description: String {
        cause.map { "\(message) (\($0))" } ?? message
    }
}

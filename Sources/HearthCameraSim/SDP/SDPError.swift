/// Why an SDP offer was refused: it does not parse (RFC 8866), or it parses but the camera cannot answer it.
///
/// The driver sends these to the caller as INVALID_ARGUMENT with ``description`` as the message, so the
/// message names the line and what is wrong with it.
public struct SDPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake; the cases can grow.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: String, Sendable, Hashable {
            case tooLarge = "too large"
            case malformedLine = "malformed line"
            case unknownType = "unknown line type"
            case misplaced = "misplaced line"
            case missing = "missing line"
            case badValue = "bad value"
            case noMedia = "no media"
            case notWebRTC = "not a WebRTC offer"
            case unanswerable = "nothing to answer"
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The description is longer than the parser accepts.
        public static let tooLarge = Code(.tooLarge)
        /// A line is not `<letter>=<value>`, or has characters SDP does not allow.
        public static let malformedLine = Code(.malformedLine)
        /// A line type letter RFC 8866 does not define (a parser must then refuse the whole description).
        public static let unknownType = Code(.unknownType)
        /// A line out of the order RFC 8866 §5 fixes (`v=` first, then `o=`, `s=`, …, `t=`, `a=`, `m=`).
        public static let misplaced = Code(.misplaced)
        /// A required line (`v=`, `o=`, `s=`, `t=`) is absent.
        public static let missing = Code(.missing)
        /// A line has the wrong number of fields or a field of the wrong form.
        public static let badValue = Code(.badValue)
        /// The description has no `m=` section.
        public static let noMedia = Code(.noMedia)
        /// A section the camera would answer lacks what WebRTC requires (ICE credentials, a DTLS fingerprint).
        public static let notWebRTC = Code(.notWebRTC)
        /// The camera can answer none of the offer's sections (no common codec or transport).
        public static let unanswerable = Code(.unanswerable)

        public var description: String { wrapped.rawValue }
    }

    /// The kind of mistake.
    public var code: Code
    /// What is wrong, for a person.
    public var message: String
    /// The 1-based line of the description it was found on, when there is one.
    public var line: Int?

    /// An error of `code` about `line`.
    public init(_ code: Code, _ message: String, line: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
    }

    public var description: String {
        if let line { return "SDP \(code) at line \(line): \(message)" }
        return "SDP \(code): \(message)"
    }
}

/// Why a simulated camera refused a command. The driver sends it as the status its ``Code`` names, with
/// ``message``.
public struct CameraError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal, named after the gRPC status the caller sees; the cases can grow.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: String, Sendable, Hashable {
            case invalidArgument = "INVALID_ARGUMENT"
            case notFound = "NOT_FOUND"
            case failedPrecondition = "FAILED_PRECONDITION"
            case resourceExhausted = "RESOURCE_EXHAUSTED"
            case unavailable = "UNAVAILABLE"
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The arguments make no sense for this camera (a malformed SDP offer, an empty viewport).
        public static let invalidArgument = Code(.invalidArgument)
        /// No such media session (unknown or expired) or push connection.
        public static let notFound = Code(.notFound)
        /// Not in this state (talkback already on, privacy mode, a transport that is not active).
        public static let failedPrecondition = Code(.failedPrecondition)
        /// Too many live sessions or push connections.
        public static let resourceExhausted = Code(.resourceExhausted)
        /// The camera's cloud cannot be reached.
        public static let unavailable = Code(.unavailable)

        public var description: String { wrapped.rawValue }
    }

    /// The kind of refusal.
    public var code: Code
    /// What went wrong, for the caller.
    public var message: String

    /// A refusal.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

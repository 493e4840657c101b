public import HearthWire

/// An error the hub answers a caller with: a code that names its gRPC status, and a message for humans.
public struct HubError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; grows without breaking callers (a struct over a private enum).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: Sendable, Hashable {
            case notFound, invalidArgument, permissionDenied, unauthenticated, unavailable, deadlineExceeded
            case failedPrecondition, resourceExhausted, `internal`, alreadyExists, cancelled
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        public static let notFound = Code(.notFound)
        public static let invalidArgument = Code(.invalidArgument)
        public static let permissionDenied = Code(.permissionDenied)
        public static let unauthenticated = Code(.unauthenticated)
        public static let unavailable = Code(.unavailable)
        public static let deadlineExceeded = Code(.deadlineExceeded)
        public static let failedPrecondition = Code(.failedPrecondition)
        public static let resourceExhausted = Code(.resourceExhausted)
        public static let `internal` = Code(.internal)
        public static let alreadyExists = Code(.alreadyExists)
        public static let cancelled = Code(.cancelled)

        /// The gRPC status code this error is answered with.
        public var status: Status.Code {
            switch wrapped {
            case .notFound: .notFound
            case .invalidArgument: .invalidArgument
            case .permissionDenied: .permissionDenied
            case .unauthenticated: .unauthenticated
            case .unavailable: .unavailable
            case .deadlineExceeded: .deadlineExceeded
            case .failedPrecondition: .failedPrecondition
            case .resourceExhausted: .resourceExhausted
            case .internal: .internal
            case .alreadyExists: .alreadyExists
            case .cancelled: .cancelled
            }
        }

        public var description: String { "\(status)" }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// The error as the wire layer sends it.
    public var rpcError: RPCError { RPCError(code: code.status, message: message) }
}

/// The outcome of a call: a gRPC status code and a human-readable message.
///
/// A status may be ``Code-swift.struct/ok``; it is what travels in the
/// `grpc-status` and `grpc-message` trailers. The error a call throws is
/// ``RPCError``, which never carries `ok`.
public struct Status: Sendable, Hashable, CustomStringConvertible {
    /// The status code.
    public var code: Code
    /// The message; empty when the peer sent none.
    public var message: String

    /// Creates a status.
    public init(code: Code, message: String = "") {
        self.code = code
        self.message = message
    }

    /// The successful status.
    public static let ok = Status(code: .ok)

    public var description: String {
        message.isEmpty ? "\(code)" : "\(code): \(message)"
    }
}

extension Status {
    /// A gRPC status code. Codes are values, so new ones can be added
    /// without breaking exhaustive switches in callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The numeric value carried in `grpc-status`.
        public let rawValue: Int

        /// Wraps a numeric code; values outside 0...16 become ``unknown``,
        /// as the gRPC specification requires of a receiver.
        public init(rawValue: Int) {
            self.rawValue = (0...16).contains(rawValue) ? rawValue : 2
        }

        public static let ok = Code(rawValue: 0)
        public static let cancelled = Code(rawValue: 1)
        public static let unknown = Code(rawValue: 2)
        public static let invalidArgument = Code(rawValue: 3)
        public static let deadlineExceeded = Code(rawValue: 4)
        public static let notFound = Code(rawValue: 5)
        public static let alreadyExists = Code(rawValue: 6)
        public static let permissionDenied = Code(rawValue: 7)
        public static let resourceExhausted = Code(rawValue: 8)
        public static let failedPrecondition = Code(rawValue: 9)
        public static let aborted = Code(rawValue: 10)
        public static let outOfRange = Code(rawValue: 11)
        public static let unimplemented = Code(rawValue: 12)
        public static let `internal` = Code(rawValue: 13)
        public static let unavailable = Code(rawValue: 14)
        public static let dataLoss = Code(rawValue: 15)
        public static let unauthenticated = Code(rawValue: 16)

        private static let names = [
            "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
            "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
            "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
            "UNAUTHENTICATED",
        ]

        /// The name gRPC gives the code, such as `NOT_FOUND`.
        public var description: String { Self.names[rawValue] }
    }
}

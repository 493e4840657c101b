public import HearthWire

/// What went wrong with a call to the hub or a device, as the Home APIs report it.
///
/// ```swift
/// do { try await light.matterTraits.onOffTrait?.on() }
/// catch let error as HomeError where error.code == .unavailable { print("the light is offline") }
/// ```
public struct HomeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case notFound, invalidArgument, permissionDenied, unavailable, deadlineExceeded, failedPrecondition
        case commandFailed, cancelled, `internal`, unauthenticated, resourceExhausted, unimplemented, aborted
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, for people.
    public var message: String

    /// An error with a code and a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// A command the device could not carry out.
    public static func commandFailed(_ message: String) -> HomeError { HomeError(.commandFailed, message) }
    /// The request does not fit the object's state.
    public static func failedPrecondition(_ message: String) -> HomeError { HomeError(.failedPrecondition, message) }
    /// No such object, or one the caller may not see.
    public static func notFound(_ message: String) -> HomeError { HomeError(.notFound, message) }
    /// A value outside what the trait accepts.
    public static func invalidArgument(_ message: String) -> HomeError { HomeError(.invalidArgument, message) }

    /// The Home error for a gRPC status from the hub.
    public init(_ error: RPCError) {
        let code: Code =
            switch error.code {
            case .notFound: .notFound
            case .invalidArgument, .outOfRange: .invalidArgument
            case .permissionDenied: .permissionDenied
            case .unavailable: .unavailable
            case .deadlineExceeded: .deadlineExceeded
            case .failedPrecondition: .failedPrecondition
            case .cancelled: .cancelled
            case .unauthenticated: .unauthenticated
            case .resourceExhausted: .resourceExhausted
            case .unimplemented: .unimplemented
            case .aborted: .aborted
            case .unknown: .commandFailed
            default: .internal
            }
        self.init(code, error.message)
    }

    /// `error` as a HomeError: a HomeError stays as it is, a gRPC status maps by code, cancellation is
    /// ``Code/cancelled``, anything else ``Code/internal``.
    public static func from(_ error: any Error) -> HomeError {
        switch error {
        case let error as HomeError: error
        case let error as RPCError: HomeError(error)
        case is CancellationError: HomeError(.cancelled, "cancelled")
        default: HomeError(.internal, "\(error)")
        }
    }
}

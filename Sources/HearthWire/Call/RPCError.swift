/// The error a call throws when it ends with a status other than `ok`.
///
/// Handlers throw it to choose the status their caller sees; any other error
/// thrown by a handler reaches the caller as `UNKNOWN` without its details.
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status code; never `ok`.
    public var code: Status.Code
    /// A message for the caller.
    public var message: String
    /// Trailing metadata sent with (or received with) the error.
    public var metadata: Metadata

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the status code; `ok` is turned into `unknown`, since an
    ///     error cannot report success.
    ///   - message: the message for the caller.
    ///   - metadata: trailing metadata.
    public init(code: Status.Code, message: String, metadata: Metadata = [:]) {
        self.code = code == .ok ? .unknown : code
        self.message = message
        self.metadata = metadata
    }

    /// Creates an error from a non-ok status, or returns nil for `ok`.
    public init?(status: Status, metadata: Metadata = [:]) {
        guard status.code != .ok else { return nil }
        self.init(code: status.code, message: status.message, metadata: metadata)
    }

    /// The status this error is sent as.
    public var status: Status { Status(code: code, message: message) }

    public var description: String { "\(code): \(message)" }
}

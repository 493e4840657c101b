public import HearthModel

/// Sends a trait's commands and attribute writes somewhere: to the hub (the client library), or to a test fake.
///
/// The typed API is transport-free: a trait value holds its attribute values and, optionally, a sender. The
/// client library and the driver kit each provide one. A sender serves every trait of a device type (one Matter
/// endpoint), so every call names the trait.
public protocol TraitCommandSender: Sendable {
    /// Invokes a command.
    ///
    /// - Parameters:
    ///   - trait: the trait's id.
    ///   - command: the command's id.
    ///   - fields: the arguments, a `.struct` keyed by field id.
    /// - Returns: the response's fields as a `.struct`, or `.null` when the command answers only success.
    func invoke(trait: TraitID, command: CommandID, fields: Value) async throws -> Value

    /// Writes attributes.
    ///
    /// - Parameters:
    ///   - trait: the trait's id.
    ///   - attributes: the values to write, by attribute id.
    func write(trait: TraitID, attributes: [AttributeID: Value]) async throws

    /// The error to throw for one the typed layer found before sending (a ``HearthModel/ValidationError``
    /// for a value the catalog refuses), so that a client library can report every failure in its own
    /// error type. The default keeps it as it is.
    func translate(_ error: any Error) -> any Error
}

extension TraitCommandSender {
    public func translate(_ error: any Error) -> any Error { error }
}

/// Errors of the typed layer itself (not of the hub or the device).
public struct TraitError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so that codes can grow.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable { case noSender, malformedResponse }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The trait value was made without a sender, so it cannot send commands or writes.
        public static let noSender = Code(.noSender)
        /// The device's response does not have the response's shape.
        public static let malformedResponse = Code(.malformedResponse)

        public var description: String { wrapped.rawValue }
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    static func noSender(trait: TraitID) -> TraitError {
        TraitError(code: .noSender, message: "trait \(trait) has no command sender")
    }

    static func malformedResponse(trait: TraitID, command: CommandID, value: Value) -> TraitError {
        TraitError(
            code: .malformedResponse, message: "trait \(trait) command \(command) answered a malformed \(value)")
    }
}

/// Why the validator refused a value, a write, a command or a report.
///
/// The message names the trait, the member and the field path, and shows the offending value, so that it can
/// be handed to the caller as it is (the hub maps every code to `invalidArgument`, except `readOnly`, which it
/// may map to `permissionDenied`).
public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of refusal; a struct over a private enum so that codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case wrongType, outOfRange, notInAllowedSet, nullNotAllowed, lengthOutOfRange
            case unknownTrait, unknownAttribute, unknownCommand, unknownEvent, unknownField
            case readOnly, missingRequiredField
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The value's shape is not the type's (a string for a bool).
        public static let wrongType = Code(.wrongType)
        /// A number outside the type's width or the declared minimum and maximum.
        public static let outOfRange = Code(.outOfRange)
        /// A number not among the allowed values, or an enum value the enum lacks.
        public static let notInAllowedSet = Code(.notInAllowedSet)
        /// Null where the attribute or field is not nullable.
        public static let nullNotAllowed = Code(.nullNotAllowed)
        /// A string, octet string or list too short or too long.
        public static let lengthOutOfRange = Code(.lengthOutOfRange)
        /// No trait has the id.
        public static let unknownTrait = Code(.unknownTrait)
        /// The trait has no attribute with the id.
        public static let unknownAttribute = Code(.unknownAttribute)
        /// The trait has no command with the id.
        public static let unknownCommand = Code(.unknownCommand)
        /// The trait has no event with the id.
        public static let unknownEvent = Code(.unknownEvent)
        /// A struct, command or event has no field with the id.
        public static let unknownField = Code(.unknownField)
        /// The attribute cannot be written by clients.
        public static let readOnly = Code(.readOnly)
        /// A field that is not optional is absent.
        public static let missingRequiredField = Code(.missingRequiredField)

        public var description: String { wrapped.rawValue }
    }

    public var code: Code
    /// A sentence naming the trait, the member, the field path and the offending value.
    public var message: String
    /// Where in the value the problem is, such as `OnOff (0x0006).startUpOnOff` or
    /// `PushAvStreamTransport (0xFFF1FC02).modifyPushTransport.transportOptions.triggerOptions.motionSensitivity`.
    public var path: String

    public init(code: Code, message: String, path: String) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { "\(code): \(message)" }
}

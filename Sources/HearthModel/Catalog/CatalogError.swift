/// Why the catalog refused a trait schema.
public struct CatalogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of refusal; a struct over a private enum so that codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case notVendorNamespace, idOutsideVendorRange, clashesWithBuiltin, conflictingRegistration, malformed
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A run-time trait must be in a `vendor:` namespace.
        public static let notVendorNamespace = Code(.notVendorNamespace)
        /// The id is not in Matter's manufacturer-specific range.
        public static let idOutsideVendorRange = Code(.idOutsideVendorRange)
        /// A builtin trait already has the id.
        public static let clashesWithBuiltin = Code(.clashesWithBuiltin)
        /// Another schema was registered under the id.
        public static let conflictingRegistration = Code(.conflictingRegistration)
        /// The schema contradicts itself (duplicate ids, unknown type names, bad defaults…).
        public static let malformed = Code(.malformed)

        public var description: String { wrapped.rawValue }
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// An attribute of a trait.
public struct AttributeSchema: Hashable, Sendable, Codable {
    /// Who may change the attribute through the hub.
    public enum Access: String, Hashable, Sendable, Codable {
        /// Reported by the device only.
        case read
        /// Also writable by clients.
        case readWrite
    }

    public var id: AttributeID
    /// The lowerCamelCase name, as the typed API spells it.
    public var name: String
    public var type: ValueType
    public var access: Access
    public var nullable: Bool
    /// Whether a device of a type that carries the trait may lack the attribute (Matter's optional or
    /// feature-dependent conformance).
    public var isOptional: Bool
    /// The default value, when the specification gives one.
    public var defaultValue: Value?
    public var constraints: Constraints
    public var description: String

    public init(
        id: AttributeID, name: String, type: ValueType, access: Access = .read, nullable: Bool = false,
        isOptional: Bool = false, defaultValue: Value? = nil, constraints: Constraints = .none,
        description: String = ""
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.access = access
        self.nullable = nullable
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.constraints = constraints
        self.description = description
    }

    /// Whether clients may write the attribute.
    public var isWritable: Bool { access == .readWrite }
}

/// A command a client sends to a trait, with its arguments and the name of its response.
public struct CommandSchema: Hashable, Sendable, Codable {
    public var id: CommandID
    public var name: String
    public var fields: [FieldSchema]
    /// The name of the response in the trait's `responses`, or nil when the command answers only success.
    public var response: String?
    /// Whether Matter requires a timed invoke (door locks); the hub may enforce a deadline.
    public var isTimed: Bool
    public var isOptional: Bool
    public var description: String

    public init(
        id: CommandID, name: String, fields: [FieldSchema] = [], response: String? = nil, isTimed: Bool = false,
        isOptional: Bool = false, description: String = ""
    ) {
        self.id = id
        self.name = name
        self.fields = fields
        self.response = response
        self.isTimed = isTimed
        self.isOptional = isOptional
        self.description = description
    }
}

/// A response a trait sends back to a command (Matter's server-to-client commands).
public struct ResponseSchema: Hashable, Sendable, Codable {
    public var id: CommandID
    /// The UpperCamelCase name (the typed API's struct name).
    public var name: String
    public var fields: [FieldSchema]
    public var description: String

    public init(id: CommandID, name: String, fields: [FieldSchema] = [], description: String = "") {
        self.id = id
        self.name = name
        self.fields = fields
        self.description = description
    }
}

/// An event a trait publishes.
public struct EventSchema: Hashable, Sendable, Codable {
    /// Matter's event priority.
    public enum Priority: String, Hashable, Sendable, Codable {
        case debug, info, critical
    }

    public var id: EventID
    public var name: String
    public var priority: Priority
    public var fields: [FieldSchema]
    public var isOptional: Bool
    public var description: String

    public init(
        id: EventID, name: String, priority: Priority = .info, fields: [FieldSchema] = [], isOptional: Bool = false,
        description: String = ""
    ) {
        self.id = id
        self.name = name
        self.priority = priority
        self.fields = fields
        self.isOptional = isOptional
        self.description = description
    }
}

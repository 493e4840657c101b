/// A field of a struct, of a command's arguments or response, or of an event.
public struct FieldSchema: Hashable, Sendable, Codable {
    public var id: FieldID
    /// The lowerCamelCase name, as the typed API spells it.
    public var name: String
    public var type: ValueType
    /// Whether `Value.null` is accepted.
    public var nullable: Bool
    /// Whether the field may be absent (an optional command argument).
    public var isOptional: Bool
    public var constraints: Constraints
    public var description: String

    public init(
        id: FieldID, name: String, type: ValueType, nullable: Bool = false, isOptional: Bool = false,
        constraints: Constraints = .none, description: String = ""
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.nullable = nullable
        self.isOptional = isOptional
        self.constraints = constraints
        self.description = description
    }
}

/// A named enum: the raw values a field of its type may take.
public struct EnumSchema: Hashable, Sendable, Codable {
    /// One value of the enum.
    public struct Item: Hashable, Sendable, Codable {
        public var value: UInt32
        public var name: String
        public var description: String
        public init(value: UInt32, name: String, description: String = "") {
            self.value = value
            self.name = name
            self.description = description
        }
    }

    public var name: String
    public var items: [Item]
    public var description: String

    public init(name: String, items: [Item], description: String = "") {
        self.name = name
        self.items = items
        self.description = description
    }

    /// Whether `raw` is one of the items.
    public func contains(_ raw: UInt32) -> Bool { items.contains { $0.value == raw } }
}

/// A named bitmap: the meaning of its bits. Undefined bits are reserved; the validator lets them through.
public struct BitmapSchema: Hashable, Sendable, Codable {
    /// One bit of the bitmap.
    public struct Bit: Hashable, Sendable, Codable {
        public var bit: Int
        public var name: String
        public var description: String
        public init(bit: Int, name: String, description: String = "") {
            self.bit = bit
            self.name = name
            self.description = description
        }
    }

    public var name: String
    public var bits: [Bit]
    public var description: String

    public init(name: String, bits: [Bit], description: String = "") {
        self.name = name
        self.bits = bits
        self.description = description
    }
}

/// A named struct: its fields by id.
public struct StructSchema: Hashable, Sendable, Codable {
    public var name: String
    public var fields: [FieldSchema]
    public var description: String

    public init(name: String, fields: [FieldSchema], description: String = "") {
        self.name = name
        self.fields = fields
        self.description = description
    }
}

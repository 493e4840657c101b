"""Emits Sources/HearthTypes/Generated/*.swift: the typed traits and device types."""
from __future__ import annotations

from catalog_model import qualified
from emit_model import hex_id, swift_string

SWIFT_KEYWORDS = {"default", "case", "class", "enum", "struct", "protocol", "func", "var", "let", "in", "is",
                  "self", "Self", "static", "return", "true", "false", "nil", "init", "repeat", "where", "switch",
                  "operator", "import", "public", "private", "internal", "extension", "subscript", "as", "do",
                  "try", "throw", "throws", "if", "else", "for", "while", "break", "continue", "guard", "defer"}
SCALAR_SWIFT = {"bool": "Bool", "double": "Double", "string": "String", "bytes": "[UInt8]",
                "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
                "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


def ident(name: str) -> str:
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def upper_first(name: str) -> str:
    return name[0].upper() + name[1:]


def namespace_name(item: dict) -> str:
    return {"matter": "Matter", "google": "Google"}.get(item["namespace"]) or item["vendor"]


def trait_type(trait: dict) -> str:
    return f"{namespace_name(trait)}.{trait['name']}Trait"


def swift_type(spelling: str) -> str:
    if spelling in SCALAR_SWIFT:
        return SCALAR_SWIFT[spelling]
    kind, _, rest = spelling.partition(":")
    if kind == "list":
        return f"[{swift_type(rest)}]"
    return rest


def decode(spelling: str, expr: str) -> str:
    """Swift expression turning Value `expr` into the Swift type, or nil."""
    if spelling == "bytes":
        return f"{expr}.bytesValue"
    kind, _, rest = spelling.partition(":")
    if kind == "list":
        return f"{expr}.decodeList({{ {decode(rest, '$0')} }})"
    return f"{swift_type(spelling)}(value: {expr})"


def encode(spelling: str, expr: str) -> str:
    """Swift expression turning `expr` of the Swift type into a Value."""
    if spelling == "bytes":
        return f"Value.bytes({expr})"
    kind, _, rest = spelling.partition(":")
    if kind == "list":
        return f"Value.list({expr}.map {{ {encode(rest, '$0')} }})"
    return f"{expr}.value"


def doc(text: str, indent: str) -> str:
    return f"{indent}/// {text}\n" if text else ""


def emit_enum(e: dict, i: str) -> str:
    out = [doc(e.get("description", ""), i),
           f"{i}public enum {e['name']}: UInt32, Sendable, Hashable, CaseIterable, ValueConvertible {{\n"]
    for item in e["items"]:
        out.append(doc(item.get("description", ""), i + "    "))
        out.append(f"{i}    case {ident(item['name'])} = {item['value']}\n")
    out.append(f"{i}}}\n")
    return "".join(out)


def emit_bitmap(b: dict, i: str) -> str:
    out = [doc(b.get("description", ""), i),
           f"{i}public struct {b['name']}: OptionSet, Sendable, Hashable, ValueConvertible {{\n",
           f"{i}    public var rawValue: UInt32\n",
           f"{i}    public init(rawValue: UInt32) {{ self.rawValue = rawValue }}\n"]
    for bit in b["bits"]:
        out.append(doc(bit.get("description", ""), i + "    "))
        out.append(f"{i}    public static let {ident(bit['name'])} = {b['name']}(rawValue: 1 << {bit['bit']})\n")
    out.append(f"{i}}}\n")
    return "".join(out)


def field_decl_type(f: dict) -> str:
    t = swift_type(f["type"])
    return f"{t}?" if f.get("nullable") or f.get("optional") else t


def emit_record(name: str, description: str, fields: list, i: str, extra: str = "",
                conformance: str = "ValueConvertible") -> str:
    """A struct with typed fields, an init, init?(value:) and value (struct types, responses, events, command
    requests)."""
    out = [doc(description, i), f"{i}public struct {name}: Sendable, Hashable, {conformance} {{\n", extra]
    for f in fields:
        out.append(doc(f.get("description", ""), i + "    "))
        out.append(f"{i}    public var {ident(f['name'])}: {field_decl_type(f)}\n")
    params = ", ".join(f"{f['name']}: {field_decl_type(f)}" + (" = nil" if f.get("optional") else "")
                       for f in fields)
    out.append(f"\n{i}    public init({params}) {{\n")
    for f in fields:
        out.append(f"{i}        self.{ident(f['name'])} = {ident(f['name'])}\n")
    out.append(f"{i}    }}\n\n{i}    public init?(value: Value) {{\n")
    if not fields:
        out.append(f"{i}        guard value == .null || value.structFields != nil else {{ return nil }}\n"
                   f"{i}    }}\n\n{i}    public var value: Value {{ .struct([:]) }}\n{i}}}\n")
        return "".join(out)
    out.append(f"{i}        guard let fields = value.structFields ?? (value == .null ? [:] : nil) else {{ return nil }}\n")
    for f in fields:
        n = ident(f["name"])
        src = f"fields[{f['id']}]"
        if f.get("nullable") or f.get("optional"):
            out.append(f"{i}        if let field = {src}, field != .null {{\n"
                       f"{i}            guard let decoded = {decode(f['type'], 'field')} else {{ return nil }}\n"
                       f"{i}            self.{n} = decoded\n"
                       f"{i}        }} else {{\n{i}            self.{n} = nil\n{i}        }}\n")
        else:
            out.append(f"{i}        guard let field = {src}, let decoded = {decode(f['type'], 'field')} "
                       f"else {{ return nil }}\n{i}        self.{n} = decoded\n")
    out.append(f"{i}    }}\n\n{i}    public var value: Value {{\n{i}        var fields: [FieldID: Value] = [:]\n")
    for f in fields:
        n = ident(f["name"])
        if f.get("optional"):
            out.append(f"{i}        if let {n} {{ fields[{f['id']}] = {encode(f['type'], n)} }}\n")
        elif f.get("nullable"):
            out.append(f"{i}        fields[{f['id']}] = {n}.map {{ {encode(f['type'], '$0')} }} ?? .null\n")
        else:
            out.append(f"{i}        fields[{f['id']}] = {encode(f['type'], n)}\n")
    out.append(f"{i}        return .struct(fields)\n{i}    }}\n{i}}}\n")
    return "".join(out)


def emit_command(trait: dict, c: dict, i: str) -> str:
    required = [f for f in c.get("fields", []) if not f.get("optional")]
    optional = [f for f in c.get("fields", []) if f.get("optional")]
    name = c["name"]
    out = []
    if optional:
        args = upper_first(name) + "OptionalArgs"
        out.append(f"{i}/// The optional arguments of ``{name}({''.join(f['name'] + ':' for f in required)}"
                   f"optionalArgsProvider:)``; leave a field nil to omit it.\n")
        out.append(f"{i}public struct {args}: Sendable, Hashable {{\n")
        for f in optional:
            out.append(doc(f.get("description", ""), i + "    "))
            out.append(f"{i}    public var {ident(f['name'])}: {swift_type(f['type'])}?\n")
        out.append(f"{i}    public init() {{}}\n{i}}}\n\n")
    out.append(doc(c.get("description", ""), i))
    if c.get("fields"):
        out.append(f"{i}///\n{i}/// - Parameters:\n")
        for f in required:
            out.append(f"{i}///   - {f['name']}: {f.get('description', '') or swift_type(f['type'])}"
                       f"{' (nil sends null)' if f.get('nullable') else ''}\n")
        if optional:
            out.append(f"{i}///   - optionalArgsProvider: sets the optional arguments.\n")
    response = c.get("response")
    if response:
        out.append(f"{i}/// - Returns: the device's ``{response}``.\n")
    out.append(f"{i}/// - Throws: a ``HearthModel/ValidationError`` for invalid arguments, ``TraitError``, or what the "
               f"sender throws.\n")
    params = [f"{f['name']}: {swift_type(f['type'])}{'?' if f.get('nullable') else ''}" for f in required]
    if optional:
        params.append(f"optionalArgsProvider: ((inout {upper_first(name)}OptionalArgs) -> Void)? = nil")
    returns = f" -> {response}" if response else ""
    if response:
        out.append(f"{i}@discardableResult\n")
    # A closure argument runs on the caller's actor before anything is sent: nonisolated(nonsending) lets a
    # @MainActor caller pass one that captures its state, as the Home APIs' guides do.
    isolation = "nonisolated(nonsending) " if optional else ""
    out.append(f"{i}{isolation}public func {ident(name)}({', '.join(params)}) async throws{returns} {{\n")
    if c.get("fields"):
        out.append(f"{i}    var fields: [FieldID: Value] = [:]\n")
    else:
        out.append(f"{i}    let fields: [FieldID: Value] = [:]\n")
    for f in required:
        n = ident(f["name"])
        if f.get("nullable"):
            out.append(f"{i}    fields[{f['id']}] = {n}.map {{ {encode(f['type'], '$0')} }} ?? .null\n")
        else:
            out.append(f"{i}    fields[{f['id']}] = {encode(f['type'], n)}\n")
    if optional:
        out.append(f"{i}    var optionalArgs = {upper_first(name)}OptionalArgs()\n"
                   f"{i}    optionalArgsProvider?(&optionalArgs)\n")
        for f in optional:
            n = ident(f["name"])
            out.append(f"{i}    if let value = optionalArgs.{n} {{ fields[{f['id']}] = {encode(f['type'], 'value')} }}\n")
    call = f"try await invoke(command: {hex_id(c['id'], 2)}, fields: fields)"
    if response:
        out.append(f"{i}    let answer = {call}\n"
                   f"{i}    guard let response = {response}(value: answer) else {{\n"
                   f"{i}        throw TraitError.malformedResponse(trait: Self.traitID, command: {hex_id(c['id'], 2)}, "
                   f"value: answer)\n{i}    }}\n{i}    return response\n")
    else:
        out.append(f"{i}    _ = {call}\n")
    out.append(f"{i}}}\n")
    return "".join(out)


def emit_trait(trait: dict) -> str:
    tname = f"{trait['name']}Trait"
    full = trait_type(trait)
    i = "    "
    kind = {"matter": "Matter cluster", "google": "Platform trait"}.get(trait["namespace"], "Vendor trait")
    out = [f"// Generated by tools/catalog/generate.py from {trait['source']}. Do not edit; edit the catalog and "
           f"regenerate.\n\npublic import HearthModel\n\n",
           f"extension {namespace_name(trait)} {{\n",
           doc(trait.get("description", ""), i), f"{i}///\n",
           f"{i}/// {kind} {hex_id(trait['id'])}, revision {trait.get('revision', 1)}.\n",
           f"{i}public struct {tname}: Trait {{\n",
           f"{i}    /// The trait's id.\n{i}    public static let traitID: TraitID = {hex_id(trait['id'])}\n",
           f"{i}    public let data: TraitData\n{i}    public let sender: (any TraitCommandSender)?\n\n",
           f"{i}    public init(data: TraitData, sender: (any TraitCommandSender)?) {{\n",
           f"{i}        self.data = data\n{i}        self.sender = sender\n{i}    }}\n\n",
           f"{i}    /// The trait's attributes, typed.\n",
           f"{i}    public var attributes: Attributes {{ Attributes(values: data.attributes) }}\n\n",
           f"{i}    public static func == (lhs: Self, rhs: Self) -> Bool {{ lhs.data == rhs.data }}\n",
           f"{i}    public func hash(into hasher: inout Hasher) {{ hasher.combine(data) }}\n",
           f"{i}}}\n}}\n\n"]
    out.append(f"extension {full} {{\n")
    for e in trait.get("enums", []):
        out.append(emit_enum(e, i) + "\n")
    for b in trait.get("bitmaps", []):
        out.append(emit_bitmap(b, i) + "\n")
    for s in trait.get("structs", []):
        out.append(emit_record(s["name"], s.get("description", ""), s["fields"], i) + "\n")
    for r in trait.get("responses", []):
        extra = f"{i}    /// The response's command id.\n{i}    public static let id: CommandID = {hex_id(r['id'], 2)}\n"
        out.append(emit_record(r["name"], r.get("description", ""), r.get("fields", []), i, extra) + "\n")
    for e in trait.get("events", []):
        extra = (f"{i}    public typealias OwnerTrait = {full}\n"
                 f"{i}    /// The event's id.\n{i}    public static let id: EventID = {hex_id(e['id'], 2)}\n")
        out.append(emit_record(upper_first(e["name"]) + "Event", e.get("description", ""), e.get("fields", []), i,
                               extra, "TraitEvent") + "\n")
    for c in trait.get("commands", []):
        extra = (f"{i}    public typealias OwnerTrait = {full}\n"
                 f"{i}    /// The command's id.\n{i}    public static let id: CommandID = {hex_id(c['id'], 2)}\n")
        description = (f"The arguments of ``{c['name']}`` as a driver receives them. "
                       f"{c.get('description', '')}").rstrip()
        out.append(emit_record(upper_first(c["name"]) + "Command", description, c.get("fields", []), i, extra,
                               "TraitCommand") + "\n")
    # Attribute ids, typed attribute view.
    out.append(f"{i}/// The attributes' ids.\n{i}public enum AttributeIDs {{\n")
    for a in trait.get("attributes", []):
        out.append(f"{i}    public static let {ident(a['name'])}: AttributeID = {hex_id(a['id'])}\n")
    out.append(f"{i}}}\n\n")
    out.append(f"{i}/// The trait's attributes, typed. Each is nil when the device does not report it, or reports "
               f"null.\n{i}///\n"
               f"{i}/// Setting one (as a driver does when it reports) stores its value; setting nil stores null.\n"
               f"{i}public struct Attributes: TraitAttributes {{\n"
               f"{i}    /// The attribute values by id, as reported.\n{i}    public var values: [AttributeID: Value]\n\n"
               f"{i}    public init(values: [AttributeID: Value] = [:]) {{ self.values = values }}\n")
    for a in trait.get("attributes", []):
        out.append("\n" + doc(a.get("description", ""), i + "    "))
        out.append(f"{i}    public var {ident(a['name'])}: {swift_type(a['type'])}? {{\n"
                   f"{i}        get {{\n"
                   f"{i}            guard let value = values[{hex_id(a['id'])}], value != .null else {{ return nil }}\n"
                   f"{i}            return {decode(a['type'], 'value')}\n{i}        }}\n"
                   f"{i}        set {{ values[{hex_id(a['id'])}] = newValue.map {{ {encode(a['type'], '$0')} }} ?? .null }}\n"
                   f"{i}    }}\n")
    out.append(f"{i}}}\n")
    writable = [a for a in trait.get("attributes", []) if a.get("write")]
    if writable:
        out.append(f"\n{i}/// Collects attribute writes for ``update(_:)``; only writable attributes have setters.\n"
                   f"{i}public struct AttributesUpdate: Sendable, Hashable {{\n"
                   f"{i}    /// The values to write, by attribute id.\n"
                   f"{i}    public private(set) var values: [AttributeID: Value] = [:]\n\n{i}    public init() {{}}\n")
        for a in writable:
            setter = "set" + upper_first(a["name"])
            t = swift_type(a["type"]) + ("?" if a.get("nullable") else "")
            out.append("\n" + doc(f"Writes {a['name']}: {a.get('description', '')}".rstrip(), i + "    "))
            expr = (f"value.map {{ {encode(a['type'], '$0')} }} ?? .null" if a.get("nullable")
                    else encode(a["type"], "value"))
            out.append(f"{i}    public mutating func {setter}(_ value: {t}) {{\n"
                       f"{i}        values[{hex_id(a['id'])}] = {expr}\n{i}    }}\n")
        out.append(f"{i}}}\n\n"
                   f"{i}/// Writes attributes: `try await trait.update {{ $0.setX(…) }}`.\n{i}///\n"
                   f"{i}/// The writes are checked against the catalog before they are sent.\n"
                   f"{i}/// - Throws: a ``HearthModel/ValidationError`` for invalid values, ``TraitError``, or what "
                   f"the sender throws.\n"
                   f"{i}/// `body` runs on the caller's actor (`nonisolated(nonsending)`), so a `@MainActor` view model may\n"
                   f"{i}/// pass a closure that reads its own state.\n"
                   f"{i}nonisolated(nonsending) public func update(_ body: (inout AttributesUpdate) -> Void) async throws {{\n"
                   f"{i}    var update = AttributesUpdate()\n{i}    body(&update)\n"
                   f"{i}    try await write(attributes: update.values)\n{i}}}\n")
    for c in trait.get("commands", []):
        out.append("\n" + emit_command(trait, c, i))
    out.append("}\n")
    return "".join(out)


def emit_device_type(device: dict, traits: list) -> str:
    by_name = {qualified(t): t for t in traits}
    members = [by_name[r] for r in device["required"] + device.get("optional", [])]
    required = set(device["required"])
    ns = namespace_name(device)
    top = device["namespace"] != "vendor"
    name = f"{device['name']}DeviceType"
    i = "    " if not top else ""
    out = [f"// Generated by tools/catalog/generate.py from Catalog/DeviceTypes.toml ({device['name']}). Do not edit; "
           f"edit the catalog and regenerate.\n\npublic import HearthModel\n\n"]
    if not top:
        out.append(f"extension {ns} {{\n")
    out.append(doc(device.get("description", ""), i) + f"{i}///\n")
    out.append(f"{i}/// Device type {hex_id(device['id'])}, revision {device.get('revision', 1)}. Requires "
               + ", ".join(f"``{trait_type(by_name[r])}``" for r in device["required"]) + ".\n")
    out.append(f"{i}public struct {name}: DeviceType {{\n"
               f"{i}    /// The device type's id.\n{i}    public static let deviceTypeID: DeviceTypeID = {hex_id(device['id'])}\n"
               f"{i}    public let traits: TraitCollection\n{i}    public let metadata: DeviceTypeMetadata\n\n"
               f"{i}    public init(traits: TraitCollection, metadata: DeviceTypeMetadata) {{\n"
               f"{i}        self.traits = traits\n{i}        self.metadata = metadata\n{i}    }}\n\n"
               f"{i}    /// The standard (Matter) traits of this device type.\n"
               f"{i}    public var matterTraits: MatterTraits {{ MatterTraits(traits: traits) }}\n"
               f"{i}    /// The platform traits of this device type.\n"
               f"{i}    public var googleTraits: GoogleTraits {{ GoogleTraits(traits: traits) }}\n")
    for group, ns_key in (("MatterTraits", "matter"), ("GoogleTraits", "google")):
        out.append(f"\n{i}    /// One property per {ns_key} trait the type may carry; nil when the device lacks it.\n"
                   f"{i}    public struct {group}: Sendable, Hashable {{\n{i}        public let traits: TraitCollection\n")
        for t in members:
            if t["namespace"] != ns_key:
                continue
            prop = t["name"][0].lower() + t["name"][1:] + "Trait"
            note = "required" if qualified(t) in required else "optional"
            out.append(f"\n{i}        /// The ``{trait_type(t)}`` ({note}).\n"
                       f"{i}        public var {prop}: {trait_type(t)}? {{ traits[{trait_type(t)}.self] }}\n")
        out.append(f"{i}    }}\n")
    out.append(f"{i}}}\n")
    if not top:
        out.append("}\n")
    return "".join(out)


def emit_namespaces(traits: list, device_types: list) -> str:
    vendors = sorted({t["vendor"] for t in traits + device_types if t["namespace"] == "vendor"})
    out = ["// Generated by tools/catalog/generate.py from Catalog/. Do not edit; edit the catalog and regenerate.\n\n",
           "/// Standard traits: Matter clusters (`Matter.OnOffTrait`).\npublic enum Matter {}\n\n",
           "/// Platform traits of the API Hearth re-creates (`Google.DoorbellPressTrait`).\npublic enum Google {}\n"]
    for v in vendors:
        out.append(f"\n/// Traits and device types of the vendor {v}.\npublic enum {v} {{}}\n")
    out.append("\n/// Every generated trait type, for registries that map a trait id to its Swift type.\n"
               "public enum GeneratedTraits {\n    /// The trait types, in catalog order.\n"
               "    public static let all: [any Trait.Type] = [\n")
    for t in traits:
        out.append(f"        {trait_type(t)}.self,\n")
    out.append("    ]\n}\n")
    return "".join(out)


def emit_types(traits: list, device_types: list) -> dict:
    files = {"Namespaces.swift": emit_namespaces(traits, device_types)}
    for t in traits:
        files[f"{namespace_name(t)}.{t['name']}Trait.swift"] = emit_trait(t)
    for d in device_types:
        prefix = "" if d["namespace"] != "vendor" else d["vendor"] + "."
        files[f"{prefix}{d['name']}DeviceType.swift"] = emit_device_type(d, traits)
    return files

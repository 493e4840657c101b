"""Emits Sources/HearthModel/Generated/BuiltinCatalog.swift: the catalog as Swift data."""
from __future__ import annotations

from catalog_model import qualified


def swift_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def hex_id(value: int, width: int = 4) -> str:
    return f"0x{value:0{width}X}"


def value_literal(spelling: str, value) -> str:
    if spelling == "bool":
        return f".bool({'true' if value else 'false'})"
    if spelling.startswith("int"):
        return f".int({value})"
    if spelling.startswith("uint") or spelling.startswith("bitmap:"):
        return f".uint({value})"
    if spelling.startswith("enum:"):
        return f".enum({value})"
    if spelling == "double":
        return f".double({float(value)})"
    if spelling == "string":
        return f".string({swift_string(value)})"
    raise ValueError(f"no default literal for {spelling}")


def constraints(item: dict) -> str:
    parts = []
    for key, label in (("min", "minimum"), ("max", "maximum")):
        if key in item:
            parts.append(f"{label}: {item[key]}")
    if "allowed" in item:
        parts.append("allowed: [" + ", ".join(str(v) for v in item["allowed"]) + "]")
    for key, label in (("min_length", "minLength"), ("max_length", "maxLength")):
        if key in item:
            parts.append(f"{label}: {item[key]}")
    return f", constraints: Constraints({', '.join(parts)})" if parts else ""


def field(item: dict, indent: str) -> str:
    extra = ""
    if item.get("nullable"):
        extra += ", nullable: true"
    if item.get("optional"):
        extra += ", isOptional: true"
    return (f"{indent}FieldSchema(id: {item['id']}, name: {swift_string(item['name'])}, "
            f"type: ValueType(spelling: {swift_string(item['type'])})!{extra}{constraints(item)}, "
            f"description: {swift_string(item.get('description', ''))}),\n")


def fields(items: list, indent: str) -> str:
    if not items:
        return "[]"
    return "[\n" + "".join(field(i, indent + "    ") for i in items) + indent + "]"


def namespace(item: dict) -> str:
    if item["namespace"] == "vendor":
        return f".vendor({swift_string(item['vendor'])})"
    return "." + item["namespace"]


def function_name(trait: dict) -> str:
    return qualified(trait).replace(".", "_")


def trait_function(trait: dict) -> str:
    i = "            "
    out = [f"    /// {qualified(trait)} from `{trait['source']}`.\n",
           f"    static func {function_name(trait)}() -> TraitSchema {{\n",
           f"        TraitSchema(\n",
           f"{i}id: {hex_id(trait['id'])}, name: {swift_string(trait['name'])}, namespace: {namespace(trait)}, "
           f"revision: {trait.get('revision', 1)},\n",
           f"{i}description: {swift_string(trait.get('description', ''))},\n"]
    out.append(f"{i}enums: [\n")
    for e in trait.get("enums", []):
        out.append(f"{i}    EnumSchema(name: {swift_string(e['name'])}, items: [\n")
        for item in e["items"]:
            out.append(f"{i}        .init(value: {item['value']}, name: {swift_string(item['name'])}, "
                       f"description: {swift_string(item.get('description', ''))}),\n")
        out.append(f"{i}    ], description: {swift_string(e.get('description', ''))}),\n")
    out.append(f"{i}],\n{i}bitmaps: [\n")
    for b in trait.get("bitmaps", []):
        out.append(f"{i}    BitmapSchema(name: {swift_string(b['name'])}, bits: [\n")
        for bit in b["bits"]:
            out.append(f"{i}        .init(bit: {bit['bit']}, name: {swift_string(bit['name'])}, "
                       f"description: {swift_string(bit.get('description', ''))}),\n")
        out.append(f"{i}    ], description: {swift_string(b.get('description', ''))}),\n")
    out.append(f"{i}],\n{i}structs: [\n")
    for s in trait.get("structs", []):
        out.append(f"{i}    StructSchema(name: {swift_string(s['name'])}, fields: {fields(s['fields'], i + '    ')}, "
                   f"description: {swift_string(s.get('description', ''))}),\n")
    out.append(f"{i}],\n{i}attributes: [\n")
    for a in trait.get("attributes", []):
        extra = ""
        if a.get("write"):
            extra += ", access: .readWrite"
        if a.get("nullable"):
            extra += ", nullable: true"
        if a.get("optional"):
            extra += ", isOptional: true"
        if a.get("default_null"):
            extra += ", defaultValue: .null"
        elif "default" in a:
            extra += f", defaultValue: {value_literal(a['type'], a['default'])}"
        out.append(f"{i}    AttributeSchema(\n{i}        id: {hex_id(a['id'])}, name: {swift_string(a['name'])}, "
                   f"type: ValueType(spelling: {swift_string(a['type'])})!{extra}{constraints(a)},\n"
                   f"{i}        description: {swift_string(a.get('description', ''))}),\n")
    out.append(f"{i}],\n{i}commands: [\n")
    for c in trait.get("commands", []):
        extra = ""
        if "response" in c:
            extra += f", response: {swift_string(c['response'])}"
        if c.get("timed"):
            extra += ", isTimed: true"
        if c.get("optional"):
            extra += ", isOptional: true"
        out.append(f"{i}    CommandSchema(\n{i}        id: {hex_id(c['id'], 2)}, name: {swift_string(c['name'])}, "
                   f"fields: {fields(c.get('fields', []), i + '        ')}{extra},\n"
                   f"{i}        description: {swift_string(c.get('description', ''))}),\n")
    out.append(f"{i}],\n{i}responses: [\n")
    for r in trait.get("responses", []):
        out.append(f"{i}    ResponseSchema(\n{i}        id: {hex_id(r['id'], 2)}, name: {swift_string(r['name'])}, "
                   f"fields: {fields(r.get('fields', []), i + '        ')},\n"
                   f"{i}        description: {swift_string(r.get('description', ''))}),\n")
    out.append(f"{i}],\n{i}events: [\n")
    for e in trait.get("events", []):
        extra = ", isOptional: true" if e.get("optional") else ""
        out.append(f"{i}    EventSchema(\n{i}        id: {hex_id(e['id'], 2)}, name: {swift_string(e['name'])}, "
                   f"priority: .{e.get('priority', 'info')}, fields: {fields(e.get('fields', []), i + '        ')}"
                   f"{extra},\n{i}        description: {swift_string(e.get('description', ''))}),\n")
    out.append(f"{i}]\n        )\n    }}\n")
    return "".join(out)


def emit_builtin_catalog(traits: list, device_types: list) -> str:
    by_name = {qualified(t): t for t in traits}
    out = ["// Generated by tools/catalog/generate.py from Catalog/. Do not edit; edit Catalog/ and regenerate.\n\n",
           "extension Catalog {\n",
           "    /// Every trait in `Catalog/`.\n",
           "    static let builtinTraitSchemas: [TraitSchema] = [\n"]
    for t in traits:
        out.append(f"        BuiltinSchemas.{function_name(t)}(),\n")
    out.append("    ]\n\n    /// Every device type in `Catalog/DeviceTypes.toml`.\n")
    out.append("    static let builtinDeviceTypeSchemas: [DeviceTypeSchema] = [\n")
    for d in device_types:
        req = ", ".join(hex_id(by_name[r]["id"]) for r in d["required"])
        opt = ", ".join(hex_id(by_name[r]["id"]) for r in d.get("optional", []))
        out.append(f"        DeviceTypeSchema(\n            id: {hex_id(d['id'])}, name: {swift_string(d['name'])}, "
                   f"namespace: {namespace(d)}, revision: {d.get('revision', 1)},\n"
                   f"            description: {swift_string(d.get('description', ''))},\n"
                   f"            requiredTraits: [{req}], optionalTraits: [{opt}]),\n")
    out.append("    ]\n}\n\n/// One function per trait keeps each expression small for the type checker.\n")
    out.append("enum BuiltinSchemas {\n")
    out.append("\n".join(trait_function(t) for t in traits))
    out.append("}\n")
    return "".join(out)

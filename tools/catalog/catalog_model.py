"""Loads and checks Catalog/: the trait and device-type TOML files (schema in Docs/Catalog.md).

Stdlib only. Every table is checked for unknown keys so that a typo fails loudly instead of being ignored.
"""
from __future__ import annotations

import pathlib
import re
import tomllib

TRAIT_KEYS = {"name", "namespace", "vendor", "id", "revision", "description",
              "enums", "bitmaps", "structs", "attributes", "commands", "responses", "events"}
ENUM_KEYS = {"name", "description", "items"}
ITEM_KEYS = {"value", "name", "description"}
BITMAP_KEYS = {"name", "description", "bits"}
BIT_KEYS = {"bit", "name", "description"}
STRUCT_KEYS = {"name", "description", "fields"}
CONSTRAINT_KEYS = {"min", "max", "allowed", "min_length", "max_length"}
FIELD_KEYS = {"id", "name", "type", "nullable", "optional", "description"} | CONSTRAINT_KEYS
ATTRIBUTE_KEYS = {"id", "name", "type", "write", "nullable", "optional", "default", "default_null",
                  "description"} | CONSTRAINT_KEYS
COMMAND_KEYS = {"id", "name", "description", "fields", "response", "timed", "optional"}
RESPONSE_KEYS = {"id", "name", "description", "fields"}
EVENT_KEYS = {"id", "name", "priority", "description", "fields", "optional"}
DEVICE_KEYS = {"name", "namespace", "vendor", "id", "revision", "description", "required", "optional",
               "unmodelled"}

SCALARS = {"bool", "double", "string", "bytes", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64"}
LOWER_CAMEL = re.compile(r"^[a-z][A-Za-z0-9]*$")
UPPER_CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")


class CatalogError(Exception):
    pass


def check_keys(table: dict, allowed: set, where: str) -> None:
    extra = set(table) - allowed
    if extra:
        raise CatalogError(f"{where}: unknown keys {sorted(extra)}")


def check_type(spelling: str, trait: dict, where: str) -> None:
    if spelling in SCALARS:
        return
    kind, _, rest = spelling.partition(":")
    if kind == "list" and rest:
        return check_type(rest, trait, where)
    table = {"enum": "enums", "bitmap": "bitmaps", "struct": "structs"}.get(kind)
    if table is None or not any(t["name"] == rest for t in trait.get(table, [])):
        raise CatalogError(f"{where}: unknown type '{spelling}'")


def check_fields(fields: list, trait: dict, where: str) -> None:
    ids = set()
    for field in fields:
        check_keys(field, FIELD_KEYS, where)
        if field["id"] in ids:
            raise CatalogError(f"{where}: field id {field['id']} used twice")
        ids.add(field["id"])
        if not LOWER_CAMEL.match(field["name"]):
            raise CatalogError(f"{where}: field name '{field['name']}' is not lowerCamelCase")
        check_type(field["type"], trait, f"{where}.{field['name']}")


def load_trait(path: pathlib.Path, root: pathlib.Path) -> dict:
    with path.open("rb") as f:
        trait = tomllib.load(f)
    where = str(path.relative_to(root))
    check_keys(trait, TRAIT_KEYS, where)
    trait["source"] = where
    if trait["namespace"] not in ("matter", "google", "vendor"):
        raise CatalogError(f"{where}: namespace must be matter, google or vendor")
    if trait["namespace"] == "vendor" and not UPPER_CAMEL.match(trait.get("vendor", "")):
        raise CatalogError(f"{where}: a vendor trait names its vendor (UpperCamelCase)")
    if not UPPER_CAMEL.match(trait["name"]):
        raise CatalogError(f"{where}: name must be UpperCamelCase")
    for table, keys in (("enums", ENUM_KEYS), ("bitmaps", BITMAP_KEYS), ("structs", STRUCT_KEYS)):
        for item in trait.get(table, []):
            check_keys(item, keys, f"{where} {table} {item.get('name')}")
    for item in trait.get("enums", []):
        for entry in item["items"]:
            check_keys(entry, ITEM_KEYS, f"{where} enum {item['name']}")
    for item in trait.get("bitmaps", []):
        for entry in item["bits"]:
            check_keys(entry, BIT_KEYS, f"{where} bitmap {item['name']}")
    for item in trait.get("structs", []):
        check_fields(item["fields"], trait, f"{where} struct {item['name']}")
    seen = set()
    for attribute in trait.get("attributes", []):
        check_keys(attribute, ATTRIBUTE_KEYS, f"{where} attribute {attribute.get('name')}")
        if attribute["id"] in seen:
            raise CatalogError(f"{where}: attribute id {attribute['id']:#06x} used twice")
        seen.add(attribute["id"])
        check_type(attribute["type"], trait, f"{where} attribute {attribute['name']}")
    responses = {r["name"] for r in trait.get("responses", [])}
    for response in trait.get("responses", []):
        check_keys(response, RESPONSE_KEYS, f"{where} response {response.get('name')}")
        check_fields(response.get("fields", []), trait, f"{where} response {response['name']}")
    for command in trait.get("commands", []):
        check_keys(command, COMMAND_KEYS, f"{where} command {command.get('name')}")
        check_fields(command.get("fields", []), trait, f"{where} command {command['name']}")
        if "response" in command and command["response"] not in responses:
            raise CatalogError(f"{where} command {command['name']}: unknown response {command['response']}")
    for event in trait.get("events", []):
        check_keys(event, EVENT_KEYS, f"{where} event {event.get('name')}")
        check_fields(event.get("fields", []), trait, f"{where} event {event['name']}")
    return trait


def qualified(item: dict) -> str:
    """matter.OnOff, google.DoorbellPress, ExampleOrganization.Spinner."""
    return item["vendor"] + "." + item["name"] if item["namespace"] == "vendor" else \
        item["namespace"] + "." + item["name"]


def load_catalog(root: pathlib.Path) -> tuple[list, list]:
    catalog = root / "Catalog"
    traits = [load_trait(p, root) for p in sorted(catalog.rglob("*.toml")) if p.name != "DeviceTypes.toml"]
    by_name = {qualified(t): t for t in traits}
    ids = {}
    for trait in traits:
        if trait["id"] in ids:
            raise CatalogError(f"{trait['source']}: id {trait['id']:#x} also used by {ids[trait['id']]}")
        ids[trait["id"]] = trait["source"]
    with (catalog / "DeviceTypes.toml").open("rb") as f:
        device_types = tomllib.load(f)["device_types"]
    for device in device_types:
        check_keys(device, DEVICE_KEYS, f"DeviceTypes.toml {device.get('name')}")
        for ref in device["required"] + device.get("optional", []):
            if ref not in by_name:
                raise CatalogError(f"DeviceTypes.toml {device['name']}: unknown trait {ref}")
    traits.sort(key=lambda t: ({"matter": 0, "google": 1, "vendor": 2}[t["namespace"]], t["name"]))
    return traits, device_types

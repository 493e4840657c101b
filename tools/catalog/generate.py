#!/usr/bin/env python3
"""Generates Swift from the trait and device-type catalog in Catalog/.

    tools/catalog/generate.py           # write Sources/HearthModel/Generated and Sources/HearthTypes/Generated
    tools/catalog/generate.py --check   # exit 1 (printing what differs) if the committed output is stale

Stdlib only (Python 3.11+ for tomllib). Works from any directory. The Generated/ folders hold only generated
files: stale files there are removed (or, with --check, reported).
"""
from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from catalog_model import CatalogError, load_catalog  # noqa: E402
from emit_model import emit_builtin_catalog  # noqa: E402
from emit_types import emit_types  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL_OUT = pathlib.Path("Sources/HearthModel/Generated")
TYPES_OUT = pathlib.Path("Sources/HearthTypes/Generated")


def render() -> dict[pathlib.Path, str]:
    traits, device_types = load_catalog(ROOT)
    files = {MODEL_OUT / "BuiltinCatalog.swift": emit_builtin_catalog(traits, device_types)}
    for name, text in emit_types(traits, device_types).items():
        files[TYPES_OUT / name] = text
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 when stale")
    args = parser.parse_args()
    try:
        files = render()
    except (CatalogError, KeyError) as error:
        print(f"error: catalog: {error}", file=sys.stderr)
        return 2
    stale = []
    for folder in (MODEL_OUT, TYPES_OUT):
        present = {p.relative_to(ROOT) for p in (ROOT / folder).glob("*.swift")}
        for extra in sorted(present - set(files)):
            stale.append(f"extra file {extra}")
            if not args.check:
                (ROOT / extra).unlink()
    for path, text in sorted(files.items()):
        target = ROOT / path
        current = target.read_text() if target.exists() else None
        if current == text:
            continue
        stale.append(f"{'missing' if current is None else 'stale'} file {path}")
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    if args.check:
        if stale:
            print("\n".join(stale))
            print("error: generated code differs from Catalog/; run tools/catalog/generate.py", file=sys.stderr)
            return 1
        print("Generated catalog code is up to date.")
        return 0
    print(f"{len(stale)} file(s) written or removed." if stale else "Nothing to do.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

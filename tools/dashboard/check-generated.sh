#!/usr/bin/env bash
# Checks that dashboard/proto.js and dashboard/catalog.js match what their generators make from Protos/hearth/v1
# and Catalog/. Regenerates both into a temporary folder and diffs. Exits 0 when up to date, 1 on a difference
# (printed as a diff). Uses the Python of tools/interop (grpcio-tools), setting it up if it is missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=$root/tools/interop/.venv/bin/python
[[ -x $python ]] || python=$("$root/tools/interop/setup.sh")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" "$root/tools/dashboard/gen_proto_js.py" --out "$tmp/proto.js" >/dev/null
"$python" "$root/tools/dashboard/gen_catalog_js.py" --out "$tmp/catalog.js" >/dev/null

stale=0
for f in proto.js catalog.js; do
  if ! diff -u "$root/dashboard/$f" "$tmp/$f" >"$tmp/diff"; then
    stale=1
    sed -e "s|$tmp/|(temp)/|g" -e "s|$root/||g" "$tmp/diff"
  fi
done
if ((stale)); then
  echo
  echo "error: dashboard/proto.js or dashboard/catalog.js differs from what Protos/ and Catalog/ produce."
  echo "Run tools/dashboard/gen_proto_js.py and tools/dashboard/gen_catalog_js.py (with tools/interop's Python)"
  echo "and commit the result."
  exit 1
fi
echo "Dashboard generated code is up to date."

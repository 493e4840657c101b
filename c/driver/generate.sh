#!/usr/bin/env bash
# Regenerates the protoc-c code the C driver SDK is built from (gen/, committed) out of Protos/hearth/v1.
#
#   c/driver/generate.sh           # write gen/ (only files whose content changed)
#   c/driver/generate.sh --check   # exit 1 with a diff when gen/ differs from what Protos/ makes
#
# Only the three protos a driver speaks are generated: values, home (Attribute, Event, enums) and
# driver_service. Called with --check by tools/check-generated.sh.
set -euo pipefail
shopt -s nullglob

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
protos=(hearth/v1/values.proto hearth/v1/home.proto hearth/v1/driver_service.proto)

command -v protoc-c >/dev/null || {
  echo "error: protoc-c not found: sudo apt-get install protobuf-c-compiler (tools/setup.sh does it)" >&2
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/Protos" && protoc-c --c_out="$tmp" "${protos[@]}")

if [[ ${1:-} == --check ]]; then
  if ! diff -ru "$here/gen" "$tmp" >"$tmp.diff" 2>&1; then
    sed -e "s|$tmp|(fresh)|g" -e "s|$root/||g" "$tmp.diff"
    rm -f "$tmp.diff"
    echo "error: c/driver/gen differs from what protoc-c makes of Protos/ (above). Run c/driver/generate.sh" >&2
    exit 1
  fi
  rm -f "$tmp.diff"
  echo "C driver SDK generated code is up to date."
  exit 0
fi

mkdir -p "$here/gen/hearth/v1"
for f in "$tmp"/hearth/v1/*; do
  dest=$here/gen/hearth/v1/${f##*/}
  if ! cmp -s "$f" "$dest"; then cp "$f" "$dest" && echo "wrote c/driver/gen/hearth/v1/${f##*/}"; fi
done
# Files whose proto is gone.
for f in "$here"/gen/hearth/v1/*; do
  [[ -e $tmp/hearth/v1/${f##*/} ]] || { rm -- "$f"; echo "removed c/driver/gen/hearth/v1/${f##*/}"; }
done

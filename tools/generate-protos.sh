#!/usr/bin/env bash
# Regenerates the Swift code for Protos/ with protoc and swift-protobuf's protoc-gen-swift.
#
#   tools/generate-protos.sh                  # write into the source tree
#   tools/generate-protos.sh --out-root DIR   # write the same layout under DIR (used by check-generated.sh)
#   tools/generate-protos.sh --list-outputs   # print the output folders of the table, one a line
#
# Works from any directory. Files whose content is unchanged are not rewritten; *.pb.swift files whose proto
# is gone are removed. protoc-gen-swift is built once by tools/codegen (swift-protobuf pinned there).
set -euo pipefail

# proto folder (under Protos/)   Swift output folder (under the root)
# A row whose proto folder is absent generates nothing (and removes any *.pb.swift left in its output folder).
MAPPINGS=(
  "grpc/health/v1  Sources/HearthWire/Health/Generated"
  "hearth/echo/v1  Sources/HearthTesting/Generated"
  "hearth/v1       Sources/HearthProto/Generated"
)

# Options for every file: public types, `public import SwiftProtobuf`, and flat output folders.
SWIFT_OPTS=(Visibility=Public UseAccessLevelOnImports=true FileNaming=DropPath)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out_root=$root

while (($#)); do
  case $1 in
    --out-root)
      [[ $# -ge 2 ]] || { echo "error: --out-root needs a folder" >&2; exit 2; }
      mkdir -p "$2"
      out_root=$(cd "$2" && pwd)
      shift 2
      ;;
    --list-outputs)
      for row in "${MAPPINGS[@]}"; do read -r _ out <<<"$row"; echo "$out"; done
      exit 0
      ;;
    -h | --help)
      sed -n '2,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *)
      echo "error: unknown argument '$1' (try --help)" >&2
      exit 2
      ;;
  esac
done

protoc=${PROTOC:-protoc}
if ! command -v "$protoc" >/dev/null 2>&1; then
  echo "error: protoc not found. Install it with the setup step: sudo apt-get install protobuf-compiler" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Build protoc-gen-swift once (about a minute); later runs reuse it while it reports the version pinned in
# tools/codegen/Package.swift. (Asking SwiftPM each time is not reliably a no-op: it sometimes recompiles.)
codegen=$root/tools/codegen
version=$(sed -nE 's|.*/swift-protobuf\.git", exact: "([^"]+)".*|\1|p' "$codegen/Package.swift")
[[ -n $version ]] || { echo "error: cannot read the swift-protobuf version from $codegen/Package.swift" >&2; exit 1; }
plugin=$codegen/.build/release/protoc-gen-swift
if [[ $("$plugin" --version 2>/dev/null) != "protoc-gen-swift $version" ]]; then
  echo "Building protoc-gen-swift $version in tools/codegen (once)..." >&2
  if ! (cd "$codegen" && swift build -c release --product protoc-gen-swift) >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    echo "error: building protoc-gen-swift failed (log above)" >&2
    exit 1
  fi
  found=$("$plugin" --version 2>/dev/null || true)
  if [[ $found != "protoc-gen-swift $version" ]]; then
    echo "error: $plugin reports '$found', expected 'protoc-gen-swift $version'" >&2
    exit 1
  fi
fi
# The well-known types (google/protobuf/*.proto) as shipped with the pinned swift-protobuf,
# so imports of them resolve even where libprotobuf-dev is not installed.
wkt=$codegen/.build/checkouts/swift-protobuf/Protos/Sources/SwiftProtobuf

opts=()
for o in "${SWIFT_OPTS[@]}"; do opts+=("--swift_opt=$o"); done

for row in "${MAPPINGS[@]}"; do
  read -r protos out <<<"$row"
  files=()
  if [[ -d $root/Protos/$protos ]]; then
    while IFS= read -r f; do
      files+=("$protos/${f##*/}")
    done < <(find "$root/Protos/$protos" -maxdepth 1 -name '*.proto' | LC_ALL=C sort)
  fi
  dest=$out_root/$out
  ((${#files[@]})) || [[ -d $dest ]] || continue

  stage=$work/$out
  mkdir -p "$stage" "$dest"
  if ((${#files[@]})); then
    (cd "$root/Protos" && "$protoc" --plugin=protoc-gen-swift="$plugin" -I . -I "$wkt" "${opts[@]}" --swift_out="$stage" "${files[@]}")
  fi

  # Sync the staged files into place, touching only what changed.
  for f in "$dest"/*.pb.swift; do
    if [[ -e $f && ! -e $stage/${f##*/} ]]; then
      rm -- "$f"
      echo "removed $out/${f##*/}"
    fi
  done
  for f in "$stage"/*.pb.swift; do
    [[ -e $f ]] || continue
    if ! cmp -s "$f" "$dest/${f##*/}"; then
      cp "$f" "$dest/${f##*/}"
      echo "wrote $out/${f##*/}"
    fi
  done
done

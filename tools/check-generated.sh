#!/usr/bin/env bash
# Checks that the generated Swift in the source tree matches what tools/generate-protos.sh makes from Protos/.
# Regenerates into a temporary folder and compares each output folder of its table both ways, so stale,
# missing and extra files all count. Exits 0 when up to date, 1 on any difference (printed as a diff).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
generate=$root/tools/generate-protos.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=$tmp/regenerated
mkdir -p "$gen" "$tmp/empty"
"$generate" --out-root "$gen" >/dev/null

stale=0
while IFS= read -r out; do
  committed=$root/$out
  fresh=$gen/$out
  # A folder absent on one side compares as empty.
  [[ -d $committed ]] || committed=$tmp/empty
  [[ -d $fresh ]] || fresh=$tmp/empty
  if ! diff -ru "$committed" "$fresh" >"$tmp/diff"; then
    stale=1
    sed -e "s|$tmp/|(temp)/|g" -e "s|$root/||g" "$tmp/diff"
  fi
done < <("$generate" --list-outputs)

if ((stale)); then
  echo
  echo "error: generated code differs from what Protos/ produces (see above; '(temp)/regenerated/' is the fresh"
  echo "output). Run tools/generate-protos.sh and commit the result; Generated/ folders hold only generated files."
  exit 1
fi
echo "Generated code is up to date."

# The C driver SDK's protoc-c output (c/driver/gen) is committed too; its generator checks it.
"$root/c/driver/generate.sh" --check

# The dashboard's files are embedded in the hub (tools/dashboard/embed.py); the embedded copy must match dashboard/.
embedded=$root/Sources/HearthHub/Dashboard/Generated/DashboardAssets.swift
python3 "$root/tools/dashboard/embed.py" "$tmp/DashboardAssets.swift"
if ! diff -q "$embedded" "$tmp/DashboardAssets.swift" >/dev/null; then
  echo "error: Sources/HearthHub/Dashboard/Generated/DashboardAssets.swift differs from dashboard/: run"
  echo "tools/dashboard/embed.py and commit the result."
  exit 1
fi
echo "The embedded dashboard is up to date."
# The dashboard's protobuf schema (dashboard/proto.js) is generated from Protos/ too.
if [[ -x $root/tools/dashboard/check-generated.sh ]]; then "$root/tools/dashboard/check-generated.sh"; fi

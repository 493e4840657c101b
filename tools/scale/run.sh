#!/usr/bin/env bash
# The hub at scale: registration, memory, load and cold start at each device count, as a table
# (tools/scale/scale.py says what each column is; Docs/Scaling.md has the figures and their reading).
#
#   tools/scale/run.sh [--devices 10000,100000] [--drivers 50] [--watchers 10] [--rate 10000] [--seconds 10] [--keep]
#
# Builds the lean C driver and watcher of tools/fanout and hearth-hub in release (SCALE_HUB=/path/to/hearth-hub
# uses that binary and builds no Swift). Results go to results/scale/<time>/ (table.md, results.json, hub logs).
# 1,000,000 devices: --devices 1000000 (about 3 GB of RAM for the hub and ten minutes).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FANOUT_BUILD_ONLY=1 "$root/tools/fanout/run.sh" >&2
hub=${SCALE_HUB:-$root/.build/release/hearth-hub}
if [[ -z ${SCALE_HUB:-} ]]; then
  (cd "$root" && swift build -c release --product hearth-hub >&2)
fi
out=$root/results/scale/$(date -u +%Y%m%dT%H%M%SZ)
exec python3 "$root/tools/scale/scale.py" --hub "$hub" --pub "$root/tools/fanout/.build/hearth_pub" \
  --sub "$root/tools/fanout/.build/hearth_sub" --out "$out" "$@"

#!/usr/bin/env bash
# The HearthSDK benchmark: a real hub, driver processes and HearthSDK clients, through hearth-load's
# sdk-10k and sdk-100k presets (tools/load/README.md):
#   - time for one client's first list() of 10k and 100k devices, in a process of its own, next to the
#     peer: the stock grpcio client (tools/interop/hub_client.py) watching to the hub's synced mark;
#   - resident memory the client's cache takes per device;
#   - delay from a driver's report to a batched() and a stream() publisher at 10k reports/s.
#
#   tools/Benchmarks/sdk.sh                 # both presets (the 100k one takes several minutes)
#   tools/Benchmarks/sdk.sh sdk-10k         # one of them
#
# LOAD_NO_BUILD=1 skips the release build. Results: results/load/sdk-*/ (table.txt, results.json,
# latency.svg); Docs/Benchmarks.md has the figures and what they mean. Not part of any test.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
tools/interop/setup.sh >&2
export HEARTH_LOAD_PEER_LIST="$root/tools/interop/.venv/bin/python $root/tools/interop/hub_client.py"
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(sdk-10k sdk-100k)
for preset in "${presets[@]}"; do
  tools/load/run.sh --preset "$preset"
  export LOAD_NO_BUILD=1
done

#!/usr/bin/env bash
# The floor under a command's round trip on this machine (Docs/Benchmarks.md, "The floor under a
# command's round trip"): three C processes passing a 40-byte message client -> hub -> driver -> hub ->
# client over loopback TCP, doing no other work, one call at a time with a pause between calls.
#
#   tools/Benchmarks/relay-floor.sh [calls] [gap-us]     (defaults: 2000 calls, 1000 us apart)
#
# Prints p50, p99 and max for the three processes on one CPU ("together"), the hub on the other CPU from
# the client and the driver ("apart", each leg wakes the other CPU), and unpinned ("free").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
calls=${1:-2000}
gap=${2:-1000}
mkdir -p "$here/.build"
cc -O2 -Wall -o "$here/.build/relay_floor" "$here/relay_floor.c"
for layout in together apart free; do
    "$here/.build/relay_floor" "$calls" "$gap" "$layout"
done

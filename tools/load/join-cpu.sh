#!/usr/bin/env bash
# Ten HearthSDK clients join a 100,000-device home at once, N times per build, alternating builds; prints the
# hub's and the clients' CPU from the drivers' registration to the end of the first phase (read from /proc),
# the clients' first list() and the lone client's list() beside it.
#
#   tools/load/join-cpu.sh N DIR [DIR...]    (each DIR holds release builds of hearth-load and hearth-hub)
#
# Example: tools/load/join-cpu.sh 3 /tmp/before /tmp/after
set -euo pipefail
n=$1; shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/proc.sh"
for _ in $(seq 1 "$n"); do
  for d in "$@"; do
    : > "$log"  # emptied here, not by the background redirect, which may come after the first grep
    "$d/hearth-load" run --preset building --clients stream=10,batched=0,devices=0,types=0,watch=0 \
      --rates 100 --seconds 2 --no-stall --join-concurrency 10 --out "$(mktemp -d)" > "$log" 2>&1 &
    run=$!
    wait_for_log "$log" "load.registered" "$run"
    hub=$(hub_pid "$d")
    h0=$(cpu_ticks "$hub"); c0=$(cpu_ticks "$run")
    wait_for_log "$log" "load.phase" "$run"
    h1=$(cpu_ticks "$hub"); c1=$(cpu_ticks "$run")
    wait "$run" || true  # a phase that fails its target exits non-zero; the join figures stand
    echo "$(date +%H:%M) $d: hub $(ticks_ms $((h1 - h0))) ms, clients $(ticks_ms $((c1 - c0))) ms of CPU" \
      "| first list() $(grep -E 'first list' "$log" | sed 's/.*first list() //')" \
      "| alone $(grep 'one client' "$log" | sed 's/one client alone: //')"
  done
done

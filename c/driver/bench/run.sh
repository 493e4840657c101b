#!/usr/bin/env bash
# CPU per report of one C driver process (libhearth-driver) at fixed report rates against a real hub.
#
#   c/driver/bench/run.sh [--rates "5000 20000 50000"] [--seconds 10] [--devices 2000] [--tick-ms 1]
#
# Builds the library (make), starts a hub (.build/release/hearth-hub if built, else the debug one;
# HEARTH_HUB_BIN overrides) on a temporary Unix socket and data directory, then runs bench/bench_driver.c
# once per rate: N temperature sensors, reports open loop at the rate, batched per tick. Prints one table
# row per rate (reports/s achieved, CPU µs per report() call and per trait report sent, user/system split,
# reports coalesced because the hub fell behind, messages on the wire) and the JSON lines after it. The
# target is <= 5 µs of CPU per report at 20,000 reports/s. The hub runs on the same machine: other load
# there (or the hub falling behind) shows as coalesced reports and noisier figures.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
driver=$(cd "$here/.." && pwd)
root=$(cd "$driver/../.." && pwd)
rates="20000"
seconds=10
devices=2000
tick=1
while (($#)); do
  [[ $# -ge 2 ]] || { echo "bench: $1 needs a value" >&2; exit 2; }
  case $1 in
    --rates) rates=$2 ;;
    --seconds) seconds=$2 ;;
    --devices) devices=$2 ;;
    --tick-ms) tick=$2 ;;
    *) echo "bench: unknown option $1 (see the head of $0)" >&2; exit 2 ;;
  esac
  shift 2
done
hub=${HEARTH_HUB_BIN:-$root/.build/release/hearth-hub}
[[ -x $hub ]] || hub=$root/.build/debug/hearth-hub
[[ -x $hub ]] || { echo "bench: no hearth-hub built (swift build -c release)" >&2; exit 1; }

# cc is gcc on Debian; a machine with only the Swift toolchain has its clang.
command -v "${CC:-cc}" >/dev/null || export CC=clang
make -s -C "$driver" build/bench-driver >/dev/null
tmp=$(mktemp -d)
hub_pid=""
cleanup() {
  [[ -n $hub_pid ]] && kill "$hub_pid" 2>/dev/null && wait "$hub_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
printf '{"clients": [{"token": "bench-admin", "user": "admin", "role": "admin"}],\n "drivers": [{"id": "bench", "token": "bench-token"}]}\n' >"$tmp/hub.json"

echo "hub: $hub"
printf '%8s %8s %10s %11s %12s %8s %8s %9s %10s\n' rate devices "reports/s" "CPU µs/rep" "µs/sent rep" "user s" "sys s" coalesced messages
results=()
for rate in $rates; do
  rm -rf "$tmp/data" "$tmp/hub.out" # the hub's redirection may come after our first look: no stale LISTENING
  "$hub" --config "$tmp/hub.json" --data-dir "$tmp/data" --listen 127.0.0.1:0 --socket "$tmp/hub.sock" \
    --log-level warning >"$tmp/hub.out" 2>"$tmp/hub.err" &
  hub_pid=$!
  for _ in $(seq 300); do grep -q LISTENING "$tmp/hub.out" && break; sleep 0.1; done
  grep -q LISTENING "$tmp/hub.out" || { cat "$tmp/hub.err" >&2; echo "bench: the hub did not start" >&2; exit 1; }
  line=$("$driver/build/bench-driver" --hub "unix:$tmp/hub.sock" --token bench-token --devices "$devices" \
    --rate "$rate" --seconds "$seconds" --tick-ms "$tick")
  results+=("$line")
  python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print("%8d %8d %10.0f %11.2f %12.2f %8.3f %8.3f %9d %10d" % (r["rate"], r["devices"], r["reports_per_second"],
      r["cpu_us_per_report"], r["cpu_us_per_sent"], r["user"], r["system"], r["coalesced"], r["messages"]))' "$line"
  kill "$hub_pid" && wait "$hub_pid" 2>/dev/null || true
  hub_pid=""
done
printf '%s\n' "${results[@]}"

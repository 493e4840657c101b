#!/usr/bin/env bash
# Where the `building` mix's CPU goes: runs the mix at one rate with a release build and prints, over
# 10 s of the phase, each side's CPU in ms per second (from /proc: utime + stime; 2,000 is two cores):
# the clients' process (hearth-load run, holding every Home), the hub, and the driver processes together;
# then the phase's p50, p99 and whether it passed.
#
#   tools/load/mix-cpu.sh DIR [RATE] [DEVICES] [-- extra hearth-load run options]
#
# DIR holds release builds of hearth-load and hearth-hub. RATE defaults to 5000, DEVICES to 10000.
# Example: tools/load/mix-cpu.sh .build/release 1500
#          tools/load/mix-cpu.sh /tmp/after 1500 10000 -- --update-interval-ms 5
set -euo pipefail
dir=$1 rate=${2:-5000} devices=${3:-10000}
shift $(( $# < 3 ? $# : 3 ))
[[ ${1:-} == -- ]] && shift
log=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$log" "$out"' EXIT
"$dir/hearth-load" run --preset building --devices "$devices" --rates "$rate" --seconds 20 --no-stall \
  --out "$out" "$@" > "$log" 2>&1 &
run=$!
until grep -q "load.registered" "$log"; do
  kill -0 "$run" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
sleep 6  # the clients' baselines and the phase's start
hub=$(pgrep -f "$dir/hearth-hub" | head -1)
snap() { for p in $(pgrep -f "$dir/hearth-"); do awk -v p="$p" '{print p, $14 + $15}' "/proc/$p/stat" 2>/dev/null || true; done; }
before=$(snap)
sleep 10
after=$(snap)
wait "$run" || true  # a phase that fails its target exits non-zero; the figures stand
tick=$(getconf CLK_TCK)
join <(sort <<<"$before") <(sort <<<"$after") | awk -v run="$run" -v hub="$hub" -v tick="$tick" '
  { ms = ($3 - $2) * 1000 / tick / 10
    if ($1 == run) c += ms; else if ($1 == hub) h += ms; else d += ms }
  END { printf "clients %.0f hub %.0f drivers %.0f total %.0f ms/s | ", c, h, d, c + h + d }'
grep -E "^rate" "$log" | awk '{print "p50", $5, "ms, p99", $7, "ms, passed:", $NF}'

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
source "$(dirname "${BASH_SOURCE[0]}")/proc.sh"
positional=()
while (($#)) && [[ $1 != -- ]]; do positional+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift  # what follows goes to hearth-load run
dir=${positional[0]:?usage: mix-cpu.sh DIR [RATE] [DEVICES] [-- options]} rate=${positional[1]:-5000}
devices=${positional[2]:-10000}
log=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$log" "$out"' EXIT
"$dir/hearth-load" run --preset building --devices "$devices" --rates "$rate" --seconds 20 --no-stall \
  --out "$out" "$@" > "$log" 2>&1 &
run=$!
wait_for_log "$log" "load.registered" "$run"
sleep 6  # the clients' baselines and the phase's start
hub=$(hub_pid "$dir")
snap() { for p in $(pgrep -f "$dir/hearth-"); do echo "$p $(cpu_ticks "$p")"; done; }
before=$(snap)
sleep 10
after=$(snap)
wait "$run" || true  # a phase that fails its target exits non-zero; the figures stand
# Ticks over 10 s to ms per second; a process that ended meanwhile (an empty reading) is left out.
join <(sort <<<"$before") <(sort <<<"$after") | awk -v run="$run" -v hub="$hub" -v tick="$(getconf CLK_TCK)" '
  NF == 3 { ms = ($3 - $2) * 1000 / tick / 10
    if ($1 == run) c += ms; else if ($1 == hub) h += ms; else d += ms }
  END { printf "clients %.0f hub %.0f drivers %.0f total %.0f ms/s | ", c, h, d, c + h + d }'
grep -E "^rate" "$log" | awk '{print "p50", $5, "ms, p99", $7, "ms, passed:", $NF}'

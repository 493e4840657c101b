#!/usr/bin/env bash
# What one driver process costs per report: a HearthDriverKit driver (hearth-load's load driver: the
# shipped simulators' device mix with a probe trait, open-loop reports) beside the lean C driver of
# tools/fanout (hearth_pub: libnghttp2 + protobuf-c) and the C driver SDK (c/driver's bench-driver on
# libhearth-driver), each alone against a release hub with no watchers.
#
#   tools/Benchmarks/driverkit.sh [--devices N] [--rates "5000 20000"] [--seconds S] [--tick-us T]
#
# Every driver sends what falls due in the same millisecond together, as the C ones always did: the
# DriverKit driver's generator sleeps at least T µs (default 1000; the load test's drivers use 200, which
# costs the generator's thread about a tenth of the process's CPU in sleeps and wake-ups at 20,000/s).
# Prints, per rate and driver: reports sent, the driver process's CPU (utime + stime) in µs per report and in %
# of one core, how far it fell behind its schedule, and the hub's CPU per report. DRIVERKIT_NO_BUILD=1 uses
# .build/release as it is. Both drivers run on CPU 0 and the hub on CPU 1 when the machine has two.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/tools/load/proc.sh"
devices=10000 rates="5000 20000" seconds=10 tick=1000
while (($#)); do
  [[ $# -ge 2 ]] || { echo "driverkit: $1 needs a value" >&2; exit 2; }
  case $1 in
    --devices) devices=$2 ;;
    --rates) rates=${2//,/ } ;;
    --seconds) seconds=$2 ;;
    --tick-us) tick=$2 ;;
    *) echo "driverkit: unknown option $1 (see the head of $0)" >&2; exit 2 ;;
  esac
  shift 2
done

if [[ ${DRIVERKIT_NO_BUILD:-0} != 1 ]]; then
  (cd "$root" && swift build -c release --product hearth-hub >&2 && swift build -c release --product hearth-load >&2)
fi
FANOUT_BUILD_ONLY=1 "$root/tools/fanout/run.sh" >/dev/null 2>&1 || { echo "driverkit: building hearth_pub failed" >&2; exit 1; }
bin=${DRIVERKIT_BIN:-$root/.build/release}
pub=$root/tools/fanout/.build/hearth_pub
make -s -C "$root/c/driver" build/bench-driver >/dev/null || { echo "driverkit: building bench-driver failed" >&2; exit 1; }
lib=$root/c/driver/build/bench-driver

tmp=$(mktemp -d /tmp/hearth-driverkit.XXXXXX)
pids=()
trap stop_processes EXIT
pin_hub=() pin_driver=()
if (($(nproc) >= 2)); then pin_hub=(taskset -c 1) pin_driver=(taskset -c 0); fi
clk=$(getconf CLK_TCK)

cat >"$tmp/hub.json" <<EOF
{"structures": [{"id": "home", "name": "Home"}],
 "clients": [{"token": "bench-admin", "user": "admin", "role": "admin"}],
 "drivers": [{"id": "kit", "token": "bench-kit"}, {"id": "c", "token": "bench-c"}, {"id": "lib", "token": "bench-lib"}]}
EOF
"${pin_hub[@]}" "$bin/hearth-hub" --config "$tmp/hub.json" --data-dir "$tmp/data" --listen 127.0.0.1:0 \
  --log-level warning >"$tmp/hub.out" 2>"$tmp/hub.err" &
hub=$!
pids+=("$hub")
for _ in $(seq 100); do grep -q '^LISTENING ' "$tmp/hub.out" 2>/dev/null && break; sleep 0.1; done
port=$(grep -m1 '^LISTENING ' "$tmp/hub.out" | awk '{print $2}' | sed 's/.*://')
[[ -n $port ]] || { echo "driverkit: the hub did not start: $(cat "$tmp/hub.err")" >&2; exit 1; }

# The DriverKit driver: announces, then reports as its standard input asks ("RUN phase rate seconds").
mkfifo "$tmp/kit.in"
"${pin_driver[@]}" "$bin/hearth-load" driver --hub "127.0.0.1:$port" --token bench-kit --index 1 \
  --devices "$devices" --tick-us "$tick" <"$tmp/kit.in" >"$tmp/kit.out" 2>"$tmp/kit.err" &
kit=$!
pids+=("$kit")
exec 3>"$tmp/kit.in"
# Registered once the driver has been idle for a second after its announcements.
quiet() {
  local a b
  for _ in $(seq 120); do
    a=$(cpu_ticks "$1"); sleep 1; b=$(cpu_ticks "$1")
    ((b - a <= clk / 50)) && return 0
  done
  return 1
}
sleep 2
quiet "$kit" || { echo "driverkit: the DriverKit driver never settled" >&2; exit 1; }

rows=()
phase=0
for rate in $rates; do
  phase=$((phase + 1))
  quiet "$hub" || true
  k0=$(cpu_ticks "$kit") h0=$(cpu_ticks "$hub")
  echo "RUN $phase $rate $seconds" >&3
  line=""
  for _ in $(seq $((seconds * 10 + 600))); do
    line=$(grep "^DONE $phase " "$tmp/kit.out" || true)
    [[ -n $line ]] && break
    sleep 0.1
  done
  [[ -n $line ]] || { echo "driverkit: no DONE from the DriverKit driver: $(tail -3 "$tmp/kit.err")" >&2; exit 1; }
  sleep 1 # the hub finishes what was sent
  k1=$(cpu_ticks "$kit") h1=$(cpu_ticks "$hub")
  read -r _ _ sent _ lag errors <<<"$line"
  rows+=("driverkit $rate $sent $((k1 - k0)) $((h1 - h0)) $lag $errors")

  # The C driver, a fresh process per rate (it announces its own devices first).
  quiet "$hub" || true
  go=$tmp/go-$phase
  "${pin_driver[@]}" "$pub" --port "$port" --token bench-c --driver-id c --publisher 0 --drivers 1 \
    --devices "$devices" --rate "$rate" --seconds "$seconds" --go "$go" >"$tmp/c-$phase.json" 2>"$tmp/c-$phase.err" &
  c=$!
  pids+=("$c")
  for _ in $(seq 600); do grep -q '^READY' "$tmp/c-$phase.err" 2>/dev/null && break; sleep 0.1; done
  quiet "$hub" || true
  c0=$(cpu_ticks "$c") h0=$(cpu_ticks "$hub")
  touch "$go"
  for _ in $(seq $((seconds * 10 + 600))); do grep -q '^{' "$tmp/c-$phase.json" 2>/dev/null && break; sleep 0.1; done
  sleep 1
  c1=$(cpu_ticks "$c") h1=$(cpu_ticks "$hub")
  kill "$c" 2>/dev/null || true
  wait "$c" 2>/dev/null || true
  csent=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["sent"])' "$tmp/c-$phase.json")
  clag=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["max_lag_us"])' "$tmp/c-$phase.json")
  rows+=("c $rate $csent $((c1 - c0)) $((h1 - h0)) $clag 0")

  # libhearth-driver (c/driver): its bench driver measures its own CPU and prints one JSON line.
  quiet "$hub" || true
  h0=$(cpu_ticks "$hub")
  "${pin_driver[@]}" "$lib" --hub "127.0.0.1:$port" --token bench-lib --devices "$devices" --rate "$rate" \
    --seconds "$seconds" --tick-ms 1 >"$tmp/lib-$phase.json" 2>"$tmp/lib-$phase.err" ||
    { echo "driverkit: bench-driver failed: $(tail -3 "$tmp/lib-$phase.err")" >&2; exit 1; }
  sleep 1
  h1=$(cpu_ticks "$hub")
  read -r lsent lticks <<<"$(python3 -c 'import json, sys; r = json.loads(open(sys.argv[1]).readline())
print(r["reports"], round(r["cpu_seconds"] * int(sys.argv[2])))' \
    "$tmp/lib-$phase.json" "$clk")"
  rows+=("lib $rate $lsent $lticks $((h1 - h0)) 0 0")
done

commit=$(git -C "$root" rev-parse --short HEAD)
git -C "$root" diff --quiet HEAD -- Sources Package.swift || commit="$commit+uncommitted"
echo "One driver process against a release hub with no watchers; hub $commit, $devices devices, $seconds s per rate."
echo "CPU is the process's utime + stime over the phase; lag = worst lag behind the open-loop schedule."
echo
echo "| driver | rate/s | reports sent | driver µs/report | driver CPU % | hub µs/report | max lag ms | errors |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for row in "${rows[@]}"; do
  read -r name rate sent dt ht lag errors <<<"$row"
  python3 - "$name" "$rate" "$sent" "$dt" "$ht" "$lag" "$errors" "$clk" "$seconds" <<'EOF'
import sys
name, rate, sent, dt, ht, lag, errors, clk, seconds = sys.argv[1:]
sent, dt, ht, clk, seconds = int(sent), int(dt), int(ht), int(clk), float(seconds)
us = lambda t: 1e6 * t / clk / max(sent, 1)
label = {"driverkit": "HearthDriverKit", "c": "C, lean (tools/fanout)", "lib": "C, libhearth-driver"}[name]
print(f"| {label} | {int(rate):,} | {sent:,} | {us(dt):.1f} | {100 * dt / clk / (seconds + 1):.0f} | {us(ht):.1f} |"
      f" {float(lag) / 1000:.1f} | {errors} |")
EOF
done

#!/usr/bin/env bash
# A command's round trip, leg by leg: the same hub (a release build) called three ways, one call at a time at
# a fixed rate, so that the client's and the driver's shares of the round trip show beside the hub's:
#
#   1. h2load -> hub -> the C driver SDK's sensors example (libhearth-driver), Identify.identify: the hub
#      with lean C at both ends;
#   2. h2load -> hub -> HearthDriverKit (hearth-load's load driver), OnOff.toggle: the driver's state report
#      applied by the hub before its answer, as every toggle does;
#   3. HearthSDK (one `Home` watching one device, `hearth-load run --preset small --clients devices=1`) ->
#      hub -> HearthDriverKit, OnOff.toggle(): issue 19's round trip, from the call.
#
# Way 2 is also run with a watcher of the whole home attached, in a process of its own: the lean C watcher
# of tools/fanout (`hearth_sub`), then `hearthctl watch` (HearthSDK, a `stream()` of the devices). Each
# toggle's state change then goes to that watcher too, and what it costs the round trip (the hub's fan-out,
# the watcher's CPU on the same cores) shows beside way 2 alone. And the same hub and driver are called
# through HearthSDK (`hearth-load toggle`: one `Home`, no subscriber), which is way 3 without the load tool's
# own hub, drivers and subscriber.
#
# Beside each way's p50 and p99: the CPU time (user and system, from /proc) each process spent per call: the
# caller, the hub, the driver and the watcher.
#
#   tools/Benchmarks/command-rtt.sh [--rate R] [--calls N] [--rounds K]   (defaults: 1000/s, 5000, 2)
#
# Prints p50 and p99 per way and round, the ways alternated. BIN (default .build/release) holds release
# builds of hearth-hub, hearth-load and hearthctl; COMMAND_RTT_NO_BUILD=1 uses them as they are. Needs h2load
# (Debian nghttp2-client, installed by tools/setup.sh) and tools/interop's Python (made if missing).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/tools/load/proc.sh"
rate=1000 calls=5000 rounds=2
while (($#)); do
  [[ $# -ge 2 ]] || { echo "command-rtt: $1 needs a value" >&2; exit 2; }
  case $1 in
    --rate) rate=$2 ;;
    --calls) calls=$2 ;;
    --rounds) rounds=$2 ;;
    *) echo "command-rtt: unknown option $1 (see the head of $0)" >&2; exit 2 ;;
  esac
  shift 2
done
bin=${BIN:-$root/.build/release}
if [[ ${COMMAND_RTT_NO_BUILD:-0} != 1 ]]; then
  (cd "$root" && for product in hearth-hub hearth-load hearthctl; do swift build -c release --product "$product" >&2 || exit 1; done)
fi
FANOUT_BUILD_ONLY=1 "$root/tools/fanout/run.sh" >/dev/null || { echo "command-rtt: building tools/fanout's C watcher failed" >&2; exit 1; }
make -s -C "$root/c/driver" build/hearth-driver-sensors >/dev/null || { echo "command-rtt: building the sensors driver failed" >&2; exit 1; }
[[ -x $root/tools/interop/.venv/bin/python ]] || "$root/tools/interop/setup.sh" >&2
python=$root/tools/interop/.venv/bin/python
command -v h2load >/dev/null || { echo "command-rtt: h2load is missing (tools/setup.sh installs nghttp2-client)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/hearth-command-rtt.XXXXXX)
pids=()
trap stop_processes EXIT

# One hub per h2load way, with its one driver; prints "PORT" once the driver's device is listed.
start_hub() { # start_hub NAME
  cat >"$tmp/$1.json" <<EOF
{"structures": [{"id": "home", "name": "Home"}],
 "clients": [{"token": "rtt-admin", "user": "admin", "role": "admin"}],
 "drivers": [{"id": "sensors", "token": "rtt-sensors"}, {"id": "load-1", "token": "rtt-kit"}]}
EOF
  "$bin/hearth-hub" --config "$tmp/$1.json" --data-dir "$tmp/$1-data" --listen 127.0.0.1:0 --log-level warning \
    >"$tmp/$1-hub.out" 2>"$tmp/$1-hub.err" &
  pids+=("$!")
  for _ in $(seq 100); do grep -q '^LISTENING ' "$tmp/$1-hub.out" 2>/dev/null && break; sleep 0.1; done
  grep -m1 '^LISTENING ' "$tmp/$1-hub.out" | awk '{print $2}' | sed 's/.*://'
}

# The request's gRPC frame, after one call through grpcio that must succeed (a wrong id fails the run here).
request() { # request PORT DEVICE TRAIT COMMAND WITH_FIELD OUT
  (cd "$root/tools/interop" && "$python" - "$@" <<'EOF'
import struct, sys, time
sys.path.insert(0, 'gen'); sys.path.insert(0, '.')
import grpc
from common import client_service_pb2, client_service_pb2_grpc
port, device, trait, command, field, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == '1', sys.argv[6]
stub = client_service_pb2_grpc.HomeServiceStub(grpc.insecure_channel(f'127.0.0.1:{port}'))
req = client_service_pb2.SendCommandRequest(device_id=device, endpoint=1, trait_id=trait, command_id=command)
if field:
    f = req.fields.fields.add(); f.id = 0; f.value.uint_value = 0
for attempt in range(50):  # until the driver has announced the device
    try:
        stub.SendCommand(req, metadata=[('authorization', 'Bearer rtt-admin')], timeout=5)
        break
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.NOT_FOUND or attempt == 49: raise
        time.sleep(0.1)
body = req.SerializeToString()
open(out, 'wb').write(b'\x00' + struct.pack('>I', len(body)) + body)
EOF
  )
}

h2load_way() { # h2load_way NAME PORT BODY -> "p50 p99" in ms, or fails
  h2load -n "$calls" -c 1 -m 1 --rps "$rate" -d "$3" -H 'content-type: application/grpc' -H 'te: trailers' \
    -H 'authorization: Bearer rtt-admin' --log-file "$tmp/$1.tsv" \
    "http://127.0.0.1:$2/hearth.v1.HomeService/SendCommand" >"$tmp/$1.h2load" 2>&1 ||
    { echo "command-rtt: h2load failed: $(tail -3 "$tmp/$1.h2load")" >&2; exit 1; }
  # HTTP 200 with grpc-status 0 is what a succeeded call is here; the one grpcio call above checked the status.
  grep -q " $calls succeeded, 0 failed" "$tmp/$1.h2load" || { echo "command-rtt: calls failed: $(grep requests: "$tmp/$1.h2load")" >&2; exit 1; }
  awk '{print $3}' "$tmp/$1.tsv" | sort -n | awk '{a[NR] = $1} END {printf "%.3f %.3f", a[int(NR * 0.5)] / 1000, a[int(NR * 0.99)] / 1000}'
}

port_c=$(start_hub c)
# Started in a command substitution, whose additions to `pids` the cleanup does not see.
hub_c=$(pgrep -f -- "--data-dir $tmp/c-data" | head -1)
pids+=("$hub_c")
"$root/c/driver/build/hearth-driver-sensors" --hub "127.0.0.1:$port_c" --token rtt-sensors --devices 1 \
  --interval-ms 600000 >"$tmp/sensors.out" 2>"$tmp/sensors.err" &
pids+=("$!")
request "$port_c" sensors/temperature-1 3 0 1 "$tmp/c.body"

port_kit=$(start_hub kit)
hub_kit=$(pgrep -f -- "--data-dir $tmp/kit-data" | head -1)
pids+=("$hub_kit")
mkfifo "$tmp/kit.in"
"$bin/hearth-load" driver --hub "127.0.0.1:$port_kit" --token rtt-kit --index 1 --devices 20 \
  <"$tmp/kit.in" >"$tmp/kit.out" 2>"$tmp/kit.err" &
pids+=("$!")
exec 3>"$tmp/kit.in"  # the load driver runs while its standard input is open
request "$port_kit" load-1/light-1 6 2 0 "$tmp/kit.body"

tick_us=$((1000000 / $(getconf CLK_TCK)))
per_call() { # per_call TICKS -> µs per call
  awk -v t="$1" -v us="$tick_us" -v n="$calls" 'BEGIN {printf "%.0f", t * us / n}'
}

# h2load_way NAME PORT BODY HUB_PID DRIVER_PID [WATCHER_PID] -> "p50 p99 caller hub driver watcher"
measured_h2load_way() {
  local hub0 driver0 watcher0=0 watcher1=0 result caller
  hub0=$(cpu_ticks "$4") driver0=$(cpu_ticks "$5")
  [[ -n ${6:-} ]] && watcher0=$(cpu_ticks "$6")
  # h2load's own CPU: the children's times of the subshell that waited for it.
  result=$(
    h2load_way "$1" "$2" "$3"
    self=$BASHPID
    echo " $(children_ticks "$self")"
  )
  [[ -n ${6:-} ]] && watcher1=$(cpu_ticks "$6")
  read -r p50 p99 caller <<<"$result"
  echo "$p50 $p99 $(per_call "$caller") $(per_call $(($(cpu_ticks "$4") - hub0))) $(per_call $(($(cpu_ticks "$5") - driver0))) $(
    [[ -n ${6:-} ]] && per_call $((watcher1 - watcher0)) || echo –)"
}

sensors_pid=$(pgrep -f -- "hearth-driver-sensors --hub 127.0.0.1:$port_c " | head -1)
kit_pid=$(pgrep -f -- "hearth-load driver --hub 127.0.0.1:$port_kit " | head -1)

seconds=$(((calls + rate - 1) / rate))
echo "Command round trip at $rate calls/s, $calls calls per way and round; $(git -C "$root" rev-parse --short HEAD)."
echo "CPU: µs per call of each process (user and system)."
echo
echo "| way | round | p50 ms | p99 ms | caller CPU | hub CPU | driver CPU | watcher CPU |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for round in $(seq "$rounds"); do
  read -r p50 p99 c h d w <<<"$(measured_h2load_way "c$round" "$port_c" "$tmp/c.body" "$hub_c" "$sensors_pid")"
  echo "| h2load → hub → C driver (libhearth-driver), Identify | $round | $p50 | $p99 | $c | $h | $d | $w |"
  read -r p50 p99 c h d w <<<"$(measured_h2load_way "kit$round" "$port_kit" "$tmp/kit.body" "$hub_kit" "$kit_pid")"
  echo "| h2load → hub → HearthDriverKit, OnOff toggle | $round | $p50 | $p99 | $c | $h | $d | $w |"
  for watcher in c sdk; do
    if [[ $watcher == c ]]; then
      "$root/tools/fanout/.build/hearth_sub" --port "$port_kit" --token rtt-admin --watcher 0 --devices 1 --rate 1 \
        --seconds 3600 --max-seconds 3600 >/dev/null 2>"$tmp/watch-$watcher.err" &
      ready=(grep -q READY "$tmp/watch-$watcher.err")
      label="h2load → hub → HearthDriverKit, a C watcher (hearth_sub) attached"
    else
      "$bin/hearthctl" watch --hub "127.0.0.1:$port_kit" --token rtt-admin >"$tmp/watch-$watcher.out" 2>&1 &
      ready=(grep -q '^watching' "$tmp/watch-$watcher.out")
      label="h2load → hub → HearthDriverKit, a HearthSDK watcher (hearthctl watch) attached"
    fi
    watcher_pid=$!
    pids+=("$watcher_pid")
    for _ in $(seq 100); do "${ready[@]}" 2>/dev/null && break; sleep 0.1; done
    "${ready[@]}" || { echo "command-rtt: the $watcher watcher did not start" >&2; exit 1; }
    read -r p50 p99 c h d w <<<"$(measured_h2load_way "kit-$watcher$round" "$port_kit" "$tmp/kit.body" "$hub_kit" "$kit_pid" "$watcher_pid")"
    echo "| $label | $round | $p50 | $p99 | $c | $h | $d | $w |"
    kill "$watcher_pid"
    wait "$watcher_pid" 2>/dev/null || true
  done
  hub0=$(cpu_ticks "$hub_kit") driver0=$(cpu_ticks "$kit_pid")
  line=$("$bin/hearth-load" toggle --hub "127.0.0.1:$port_kit" --token rtt-admin --device load-1/light-1 --rate "$rate" \
    --calls "$calls" 2>&1 | grep '^toggles' || true)
  [[ -n $line ]] || { echo "command-rtt: hearth-load toggle printed no result" >&2; exit 1; }
  p50=$(sed -E 's/.*from the call p50 ([0-9.]+) ms.*/\1/' <<<"$line")
  p99=$(sed -E 's/.*from the call p50 [0-9.]+ ms, p99 ([0-9.]+) ms.*/\1/' <<<"$line")
  c=$(sed -E 's/.*CPU ([0-9]+) µs per call.*/\1/' <<<"$line")
  echo "| HearthSDK (one Home, no subscriber) → hub → HearthDriverKit, OnOff.toggle() | $round | $p50 | $p99 | $c | $(
    per_call $(($(cpu_ticks "$hub_kit") - hub0))) | $(per_call $(($(cpu_ticks "$kit_pid") - driver0))) | – |"
  line=$("$bin/hearth-load" run --preset small --clients batched=0,stream=0,devices=1,types=0 --rates 100 --seconds 1 \
    --no-stall --command-rate "$rate" --command-seconds "$seconds" --out "$tmp/sdk$round" 2>&1 | grep '^commands' || true)
  [[ -n $line ]] || { echo "command-rtt: hearth-load printed no command line" >&2; exit 1; }
  p50=$(sed -E 's/.*from the call p50 ([0-9.]+) ms.*/\1/' <<<"$line")
  p99=$(sed -E 's/.*from the call p50 [0-9.]+ ms, p99 ([0-9.]+) ms.*/\1/' <<<"$line")
  echo "| HearthSDK (hearth-load run --preset small, one Home) → its hub → HearthDriverKit, OnOff.toggle() | $round | $p50 | $p99 | – | – | – | – |"
done

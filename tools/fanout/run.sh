#!/usr/bin/env bash
# Hearth hub against mosquitto: fan-out of device state changes, lean C publishers and subscribers on both
# sides, in one run. See tools/fanout/README.md.
#
#   tools/fanout/run.sh [--devices N] [--drivers D] [--watchers "1 10"] [--rates "1000 5000 …"]
#                       [--seconds T] [--systems "hearth mosquitto"] [--settle S] [--out DIR]
#
# Environment (flags win): FANOUT_DEVICES, FANOUT_DRIVERS, FANOUT_WATCHERS, FANOUT_RATES, FANOUT_SECONDS,
# FANOUT_SYSTEMS, FANOUT_SETTLE=5 (seconds watchers get after the publishers finish), FANOUT_NO_BUILD=1 (use
# .build/release/hearth-hub as it is), FANOUT_PIN=0 (no taskset), FANOUT_SERVER_CPUS=1, FANOUT_CLIENT_CPUS=0,
# FANOUT_MOSQ_NODELAY=0 (leave mosquitto's Nagle on, its default), FANOUT_KEEP=1 (keep the temp dir),
# FANOUT_HUB=/path/to/hearth-hub (use that binary, build nothing) with FANOUT_HUB_COMMIT=<id> to label it,
# FANOUT_HUB_EXTRA='{"event_loops": 2}' (keys merged into the hub's config file),
# FANOUT_RENAMES=100 (during Hearth's phases, also rename devices at this open-loop rate and print the
# acknowledgement latency of those durable metadata commits beside the same client's health checks, which touch
# no disk), FANOUT_RENAMER=c|python (the client that does it: tools/fanout/hearth_renamer.c, the default, or
# tools/fanout/renamer.py on grpcio, whose own cost per call is 0.4–0.6 ms),
# FANOUT_QUIET_MAX=30 (seconds to wait before a phase for both CPUs to calm down), FANOUT_CLIENT_NICE=-5,
# FANOUT_RETRIES=2 (runs of a phase again when other processes took over 20% of a CPU),
# FANOUT_SERVER_SCHED=rr|fifo (run both servers real-time at priority 1: other people's load on their CPU
# then moves to the clients' CPU instead; default: normal scheduling, as deployed),
# FANOUT_ALLOCS=1 (count each server's calls to malloc, calloc, realloc, posix_memalign and aligned_alloc
# during each phase through uprobes, and record Hearth's malloc call stacks: allocations per change, and where
# they come from; the probes cost time, so latency figures of such a run are not comparable).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$here/.build
hub_bin=${FANOUT_HUB:-$root/.build/release/hearth-hub}

devices=${FANOUT_DEVICES:-10000}
drivers=${FANOUT_DRIVERS:-4}
watchers=${FANOUT_WATCHERS:-"1 10"}
rates=${FANOUT_RATES:-"1000 5000 10000 20000 50000"}
seconds=${FANOUT_SECONDS:-10}
systems=${FANOUT_SYSTEMS:-"hearth mosquitto"}
settle=${FANOUT_SETTLE:-5}
out=""

say() { printf '%s\n' "$*" >&2; }
die() { say "fanout: $*"; exit 1; }

while (($#)); do
  [[ $# -ge 2 ]] || die "$1 needs a value"
  case $1 in
    --devices) devices=$2 ;;
    --drivers) drivers=$2 ;;
    --watchers) watchers=$2 ;;
    --rates) rates=$2 ;;
    --seconds) seconds=$2 ;;
    --systems) systems=$2 ;;
    --settle) settle=$2 ;;
    --out) out=$2 ;;
    *) die "unknown option $1 (see the head of $0)" ;;
  esac
  shift 2
done
rates=${rates//,/ }
watchers=${watchers//,/ }
for n in "$devices" "$drivers" "$seconds" "$settle" $rates $watchers; do
  [[ $n =~ ^[0-9]+$ && $n -gt 0 ]] || die "'$n' is not a positive integer"
done
((devices % drivers == 0)) || die "--devices ($devices) must be a multiple of --drivers ($drivers)"
max_watchers=0
for k in $watchers; do if ((k > max_watchers)); then max_watchers=$k; fi; done

# --- packages and build --------------------------------------------------------------------------------
missing=()
for package in mosquitto libmosquitto-dev protobuf-c-compiler libprotobuf-c-dev libnghttp2-dev pkg-config; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=()
  ((EUID == 0)) || sudo=(sudo)
  say "installing ${missing[*]}"
  "${sudo[@]}" apt-get install -y "${missing[@]}" >&2 ||
    { "${sudo[@]}" apt-get update >&2 && "${sudo[@]}" apt-get install -y "${missing[@]}" >&2; }
fi
for tool in mosquitto protoc-c cc pkg-config python3 taskset; do
  command -v "$tool" >/dev/null || die "$tool not found"
done
alloc_events=""
if [[ ${FANOUT_ALLOCS:-0} == 1 ]]; then
  command -v perf >/dev/null || die "FANOUT_ALLOCS=1 needs perf (apt-get install linux-perf)"
  libc=$(ldconfig -p | awk '/libc\.so\.6 .*x86-64|libc\.so\.6 .*=>/ {print $NF; exit}')
  for fn in malloc calloc realloc posix_memalign aligned_alloc; do
    perf probe -l 2>/dev/null | grep -q "probe_libc:$fn " || perf probe -q -x "$libc" "$fn" >&2 ||
      die "could not add a uprobe on $fn in $libc (needs root and uprobes)"
    alloc_events+="${alloc_events:+,}probe_libc:$fn"
  done
fi

say "building the C clients into $build"
rm -rf "$build/gen"
mkdir -p "$build/gen"
protoc-c --c_out="$build/gen" -I"$root/Protos" "$root"/Protos/hearth/v1/{values,home,watch,driver_service,client_service}.proto
pb=("$build"/gen/hearth/v1/{values,home,watch,driver_service,client_service}.pb-c.c)
cflags=(-O2 -Wall -Wextra -std=c11 -I"$here" -I"$build/gen")
read -ra h2_flags <<<"$(pkg-config --cflags --libs libprotobuf-c libnghttp2)"
read -ra mq_flags <<<"$(pkg-config --cflags --libs libmosquitto)"
for program in hearth_pub hearth_sub hearth_renamer; do
  cc "${cflags[@]}" -o "$build/$program" "$here/$program.c" "$here/common.c" "$here/h2grpc.c" "${pb[@]}" "${h2_flags[@]}"
done
for program in mosq_pub mosq_sub; do
  cc "${cflags[@]}" -o "$build/$program" "$here/$program.c" "$here/common.c" "${mq_flags[@]}"
done

# FANOUT_BUILD_ONLY=1: the C clients only (tools/Benchmarks/driverkit.sh uses hearth_pub).
[[ ${FANOUT_BUILD_ONLY:-0} == 1 ]] && exit 0

if [[ -n ${FANOUT_HUB:-} ]]; then
  [[ -x $hub_bin ]] || die "FANOUT_HUB=$hub_bin is not an executable"
  say "using $hub_bin (FANOUT_HUB)"
elif [[ ${FANOUT_NO_BUILD:-0} == 1 && -x $hub_bin ]]; then
  say "using $hub_bin as built (FANOUT_NO_BUILD=1)"
else
  say "building hearth-hub in release"
  (cd "$root" && swift build -c release --product hearth-hub >&2)
fi

# --- where things go -----------------------------------------------------------------------------------
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${out:-$root/results/fanout/$stamp}
mkdir -p "$out/phases"
tmp=$(mktemp -d /tmp/hearth-fanout.XXXXXX)
pids=()                # the servers
sub_pids=() pub_pids=() renamer_pids=() # the current phase's clients, not yet stopped

stop_pids() { # TERM, up to 5 s, then KILL; only the processes this script started
  local pid alive
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for pid in "$@"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}
cleanup() {
  stop_pids "${sub_pids[@]}" "${pub_pids[@]}" "${renamer_pids[@]}" "${pids[@]}"
  [[ ${FANOUT_KEEP:-0} == 1 ]] && say "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

server_pin=() client_pin=()
if [[ ${FANOUT_PIN:-1} != 0 ]] && (($(nproc) >= 2)); then
  server_pin=(taskset -c "${FANOUT_SERVER_CPUS:-1}")
  client_pin=(taskset -c "${FANOUT_CLIENT_CPUS:-0}")
  pinning="servers on CPU ${FANOUT_SERVER_CPUS:-1}, publishers and subscribers on CPU ${FANOUT_CLIENT_CPUS:-0}"
  server_cores=${FANOUT_SERVER_CPUS:-1} client_cores=${FANOUT_CLIENT_CPUS:-0}
  server_cores=${server_cores//,/ } client_cores=${client_cores//,/ }
  case ${FANOUT_SERVER_SCHED:-other} in
    other) ;;
    rr | fifo)
      server_pin+=(chrt "--${FANOUT_SERVER_SCHED}" 1)
      pinning="$pinning; servers under SCHED_${FANOUT_SERVER_SCHED^^} priority 1" ;;
    *) die "FANOUT_SERVER_SCHED must be other, rr or fifo" ;;
  esac
else
  pinning="not pinned"
  server_cores=" " client_cores=" " # the "cpu " line: all CPUs
fi

# The clients run at nice FANOUT_CLIENT_NICE (default -5 as root): on a shared machine other people's processes
# then take less of their CPU, alike for both systems. The servers keep their own scheduling, as deployed.
client_nice=${FANOUT_CLIENT_NICE:-$( ((EUID == 0)) && echo -5 || echo 0)}
[[ $client_nice =~ ^-?[0-9]+$ ]] || die "FANOUT_CLIENT_NICE must be an integer"
if ((client_nice != 0)); then
  client_pin=(nice -n "$client_nice" "${client_pin[@]}")
  pinning="$pinning; clients at nice $client_nice"
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
clk_tck=$(getconf CLK_TCK)
# CPU ticks (utime + stime, all threads) of a process
ticks() { local s f; s=$(<"/proc/$1/stat") && s=${s##*) } && read -ra f <<<"$s" && echo $((f[11] + f[12])); }
# busy ticks of the CPUs listed in $1 (" ": all of them): whatever ran there, ours or not
core_busy() {
  local total=0 cpu f
  for cpu in $1; do
    read -ra f < <(grep "^cpu$cpu " /proc/stat)
    total=$((total + f[1] + f[2] + f[3] + f[6] + f[7] + f[8]))
  done
  echo "$total"
}
# nanoseconds the process's threads spent runnable but waiting for a CPU
runq_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $2} END {printf "%d\n", s}'; }
snapshot() {
  echo "$(date +%s.%N) $(ticks "$hub_pid") $(ticks "$mq_pid") $(core_busy "$server_cores") $(runq_ns "$1")" \
    "$(core_busy "$client_cores")"
}
# waits (1 to FANOUT_QUIET_MAX=30 s) until, for a whole second, neither server used more than 2% of a CPU (the
# last phase's tail, a hub persisting or drivers going offline, must not run inside the next phase) and other
# processes took under 20% of the servers' CPU and of the clients' (a shared machine: other people's builds;
# our clients are idle then); prints the seconds
servers_ticks() { echo $(($(ticks "$hub_pid") + $(ticks "$mq_pid"))); }
wait_quiet() {
  local ours0 ours1 busy0 busy1 client0 client1 waited
  for ((waited = 1; waited <= ${FANOUT_QUIET_MAX:-30}; waited++)); do
    ours0=$(servers_ticks) busy0=$(core_busy "$server_cores") client0=$(core_busy "$client_cores")
    sleep 1
    ours1=$(servers_ticks) busy1=$(core_busy "$server_cores") client1=$(core_busy "$client_cores")
    ((ours1 - ours0 > clk_tck / 50 || busy1 - busy0 - (ours1 - ours0) > clk_tck / 5 ||
      client1 - client0 > clk_tck / 5)) || break
  done
  echo "$waited"
}

# waits until FILE has a line matching PATTERN, or PID died, or SECONDS passed
wait_line() {
  local file=$1 pattern=$2 pid=$3 limit=$4 waited=0
  until grep -q "$pattern" "$file" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { say "process $pid ended: $(tail -3 "$file" 2>/dev/null)"; return 1; }
    ((waited++ < limit * 10)) || { say "no '$pattern' in $file after $limit s"; return 1; }
    sleep 0.1
  done
}

# --- servers -------------------------------------------------------------------------------------------
mq_port=$(free_port)
{
  echo "listener $mq_port 127.0.0.1"
  echo "allow_anonymous true"
  echo "persistence false"
  [[ ${FANOUT_MOSQ_NODELAY:-1} == 1 ]] && echo "set_tcp_nodelay true"
  echo "log_dest stderr"
  echo "log_type error"
  echo "log_type warning"
} >"$tmp/mosquitto.conf"
"${server_pin[@]}" mosquitto -c "$tmp/mosquitto.conf" >"$tmp/mosquitto.log" 2>&1 &
mq_pid=$!
pids+=("$mq_pid")

suffix=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
python3 - "$tmp/hub.json" "$drivers" "$max_watchers" "$suffix" "${FANOUT_HUB_EXTRA:-"{}"}" <<'EOF'
import json, sys
path, drivers, watchers, suffix, extra = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
config = {
    "structures": [{"id": "home", "name": "Home"}],
    "clients": [{"token": f"fanout-watch-{i}-{suffix}", "user": f"watcher{i}", "role": "viewer", "structures": ["*"]}
                for i in range(watchers)],
    "drivers": [{"id": f"fanout{j}", "token": f"fanout-driver-{j}-{suffix}"} for j in range(drivers)],
}
config["clients"].append({"token": f"fanout-admin-{suffix}", "user": "renamer", "role": "admin", "structures": ["*"]})
config.update(json.loads(extra))
json.dump(config, open(path, "w"), indent=2)
EOF
"${server_pin[@]}" "$hub_bin" --config "$tmp/hub.json" --data-dir "$tmp/hub" --listen 127.0.0.1:0 \
  --log-level warning >"$tmp/hub.log" 2>&1 &
hub_pid=$!
pids+=("$hub_pid")
wait_line "$tmp/hub.log" '^LISTENING ' "$hub_pid" 60 || die "the hub did not start (log: $tmp/hub.log)"
hub_port=$(grep -m1 '^LISTENING ' "$tmp/hub.log" | awk '{print $2}' | sed 's/.*://')
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$mq_port") 2>/dev/null && break; sleep 0.1; done
kill -0 "$mq_pid" 2>/dev/null || die "mosquitto did not start: $(cat "$tmp/mosquitto.log")"
say "hub pid $hub_pid on 127.0.0.1:$hub_port, mosquitto pid $mq_pid on 127.0.0.1:$mq_port; $pinning"

if [[ -n ${FANOUT_HUB_COMMIT:-} ]]; then
  commit=$FANOUT_HUB_COMMIT
else
  commit=$(git -C "$root" rev-parse --short HEAD)
  git -C "$root" diff --quiet HEAD -- Sources Package.swift || commit="$commit+uncommitted"
fi
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

case ${FANOUT_RENAMER:-c} in # the renames' client, and its name in the output
  c) renamer=("$build/hearth_renamer") renamer_name="hearth_renamer (C)" ;;
  python)
    renamer=() renamer_name="renamer.py (grpcio)"
    if [[ ${FANOUT_RENAMES:-0} -gt 0 ]]; then
      interop_python=$("$root/tools/interop/setup.sh" | tail -1) || die "tools/interop/setup.sh failed (the renamer needs grpcio)"
      renamer=("$interop_python" "$here/renamer.py")
    fi
    ;;
  *) die "FANOUT_RENAMER must be c or python" ;;
esac

# --- one phase: K watchers and D publishers of one system at one rate ----------------------------------
failed=0
run_phase() {
  local system=$1 rate=$2 k=$3 dir=$4 i j pid server_pid before after quiet waited
  mkdir -p "$dir"
  local go=$tmp/go-${dir##*/}
  sub_pids=() pub_pids=()
  [[ $system == hearth ]] && server_pid=$hub_pid || server_pid=$mq_pid
  local common=(--devices "$devices" --rate "$rate" --seconds "$seconds" --max-seconds $((seconds * 20 + 300)))
  for ((i = 0; i < k; i++)); do
    if [[ $system == hearth ]]; then
      "${client_pin[@]}" "$build/hearth_sub" --port "$hub_port" --token "fanout-watch-$i-$suffix" --watcher "$i" \
        "${common[@]}" >"$dir/sub-$i.json" 2>"$dir/sub-$i.err" &
    else
      "${client_pin[@]}" "$build/mosq_sub" --port "$mq_port" --watcher "$i" "${common[@]}" \
        >"$dir/sub-$i.json" 2>"$dir/sub-$i.err" &
    fi
    sub_pids+=($!)
  done
  for ((i = 0; i < k; i++)); do wait_line "$dir/sub-$i.err" '^READY' "${sub_pids[i]}" 300 || return 1; done
  for ((j = 0; j < drivers; j++)); do
    if [[ $system == hearth ]]; then
      "${client_pin[@]}" "$build/hearth_pub" --port "$hub_port" --token "fanout-driver-$j-$suffix" \
        --driver-id "fanout$j" --publisher "$j" --drivers "$drivers" --go "$go" "${common[@]}" \
        >"$dir/pub-$j.json" 2>"$dir/pub-$j.err" &
    else
      "${client_pin[@]}" "$build/mosq_pub" --port "$mq_port" --publisher "$j" --drivers "$drivers" --go "$go" \
        "${common[@]}" >"$dir/pub-$j.json" 2>"$dir/pub-$j.err" &
    fi
    pub_pids+=($!)
  done
  for ((j = 0; j < drivers; j++)); do wait_line "$dir/pub-$j.err" '^READY' "${pub_pids[j]}" 300 || return 1; done
  if [[ $system == hearth && ${FANOUT_RENAMES:-0} -gt 0 ]]; then
    "${client_pin[@]}" "${renamer[@]}" --port "$hub_port" --token "fanout-admin-$suffix" \
      --devices "$devices" --drivers "$drivers" --rate "$FANOUT_RENAMES" --seconds "$seconds" --go "$go" \
      >"$dir/renames.json" 2>"$dir/renames.err" &
    renamer_pids=($!)
    wait_line "$dir/renames.err" '^READY' "${renamer_pids[0]}" 120 || return 1
  fi
  quiet=$(wait_quiet) # also lets the announcements' fan-out settle
  before=$(snapshot "$server_pid")
  local stat_pid="" record_pid=""
  if [[ -n $alloc_events ]]; then
    perf stat -x, -e "$alloc_events" -p "$server_pid" -o "$dir/allocs.csv" 2>/dev/null &
    stat_pid=$!
    if [[ $system == hearth ]]; then
      # Two seconds of call stacks give the shares; perf stat gives the exact counts of the whole phase.
      perf record -q -e probe_libc:malloc --call-graph fp -p "$server_pid" -o "$dir/malloc.perf" -- sleep 2 \
        2>/dev/null &
      record_pid=$!
    fi
  fi
  touch "$go"
  for ((j = 0; j < drivers; j++)); do
    wait_line "$dir/pub-$j.json" '^{' "${pub_pids[j]}" $((seconds * 10 + 120)) || return 1
  done
  # Watchers end by themselves once every device reached its last seq; give them `settle` seconds more.
  for ((waited = 0; waited < settle * 10; waited++)); do
    local alive=0
    for pid in "${sub_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  stop_pids "${sub_pids[@]}"
  sub_pids=()
  after=$(snapshot "$server_pid")
  if ((${#renamer_pids[@]})); then
    wait "${renamer_pids[0]}" || say "the renamer failed (log: $dir/renames.err)"
    renamer_pids=()
    say "renames at ${FANOUT_RENAMES}/s during $rate changes/s, $k watcher(s), measured by $renamer_name:" \
      "$(cat "$dir/renames.json")"
  fi
  for pid in $stat_pid $record_pid; do kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  stop_pids "${pub_pids[@]}"
  pub_pids=()
  if [[ -n $stat_pid ]]; then
    python3 "$here/allocs.py" count "$dir/allocs.csv" "$dir" >"$dir/allocs.json"
  fi
  if [[ -n $record_pid ]]; then
    perf script -i "$dir/malloc.perf" -F comm,tid,event,ip,sym,dso 2>/dev/null >"$dir/malloc.txt" &&
      python3 "$here/allocs.py" sites "$dir/malloc.txt" "$dir" 15 >"$dir/alloc-sites.txt"
    rm -f "$dir/malloc.perf"
    gzip -f "$dir/malloc.txt"
  fi
  python3 "$here/report.py" phase "$dir/phase.json" "$system" "$rate" "$k" "$devices" "$drivers" "$seconds" \
    "$clk_tck" "$quiet" "$before" "$after"
}

# A phase in which other processes took over 20% of either CPU is run again, up to FANOUT_RETRIES (2) more
# times; the table keeps the attempt with the least such noise (every attempt stays in phases/).
retries=${FANOUT_RETRIES:-2}
for rate in $rates; do
  for k in $watchers; do
    for system in $systems; do
      best="" best_noise=1000000
      for ((attempt = 1; attempt <= retries + 1; attempt++)); do
        say "phase: $system, $rate changes/s, $k watcher(s), $devices devices, $drivers publishers, $seconds s" \
          "(attempt $attempt)"
        dir=$out/phases/$system-r$rate-k$k-a$attempt
        if ! run_phase "$system" "$rate" "$k" "$dir"; then
          say "phase $system/$rate/$k failed; logs in $dir"
          stop_pids "${sub_pids[@]}" "${pub_pids[@]}" "${renamer_pids[@]}"
          sub_pids=() pub_pids=() renamer_pids=()
          failed=1
          break
        fi
        row=$(python3 "$here/report.py" row "$dir")
        noise=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["noise_pct"])' "$row")
        if ((noise < best_noise)); then best=$row best_noise=$noise; fi
        ((noise > 20)) || break
        say "other processes took $noise% of a CPU during that phase"
      done
      [[ -z $best ]] || echo "$best" >>"$out/rows.jsonl"
      if [[ -n $alloc_events && -s $dir/allocs.json ]]; then
        python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r.update(system=sys.argv[2], rate=int(sys.argv[3]), watchers=int(sys.argv[4])); print(json.dumps(r))' \
          "$dir/allocs.json" "$system" "$rate" "$k" >>"$out/allocs.jsonl"
      fi
      kill -0 "$hub_pid" 2>/dev/null || die "the hub died (log: $tmp/hub.log)"
      kill -0 "$mq_pid" 2>/dev/null || die "mosquitto died (log: $tmp/mosquitto.log)"
    done
  done
done

cp "$tmp/hub.log" "$tmp/mosquitto.log" "$out/" 2>/dev/null || true
python3 - "$out/results.json" <<EOF
import json, sys
json.dump({"commit": "$commit", "date": "$stamp", "devices": $devices, "drivers": $drivers, "seconds": $seconds,
           "watchers": "$watchers", "rates": "$rates", "pinning": "$pinning", "nproc": $(nproc),
           "load_average_start": "$load_start", "load_average_end": "$(cut -d' ' -f1-3 /proc/loadavg)",
           "mosquitto": "$(mosquitto -h 2>/dev/null | head -1)", "mosquitto_tcp_nodelay": ${FANOUT_MOSQ_NODELAY:-1} == 1,
           "nghttp2": "$(pkg-config --modversion libnghttp2)", "hub": "$hub_bin"}, open(sys.argv[1], "w"))
EOF
{
  echo "Hearth $commit vs $(mosquitto -h 2>/dev/null | head -1): $devices devices, $drivers publishers, $seconds s per phase;"
  echo "$pinning; load average $load_start at start, $(cut -d' ' -f1-3 /proc/loadavg) at end."
  echo "Latency from each change's due time (open-loop schedule) to its arrival at a watcher: the worst watcher's"
  echo "percentile. srv = the server process (utime+stime): per change delivered to one watcher, and per delivery;"
  echo "srv runq % = time its threads waited for a CPU; clients CPU % and runq % = publishers + subscribers together"
  echo "(from their go / their first delivery), in % of one core; others % = CPU that processes other than ours took"
  echo "on the servers' / the clients' CPU (a shared machine), rows over 20% marked †; pub lag = worst lag behind the"
  echo "open-loop schedule. resets = watch streams the hub ended or reset, each resumed from its last revision."
  echo
  [[ -s $out/rows.jsonl ]] && python3 "$here/report.py" table "$out/rows.jsonl" "$out/results.json"
  if [[ -s $out/allocs.jsonl ]]; then
    echo
    echo "Allocation calls of each server process during each phase (uprobes on libc; FANOUT_ALLOCS=1):"
    python3 "$here/allocs.py" table "$out/allocs.jsonl"
    for sites in "$out"/phases/hearth-*/alloc-sites.txt; do
      [[ -s $sites ]] || continue
      echo
      echo "Where Hearth's malloc calls came from in phase $(basename "$(dirname "$sites")"):"
      cat "$sites"
    done
  fi
} | tee "$out/table.txt"
say "results in $out"
exit $((failed))

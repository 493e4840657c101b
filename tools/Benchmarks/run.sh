#!/usr/bin/env bash
# HearthWire against grpc-swift-2: the same echo service, measured with h2load in one run.
#
#   tools/Benchmarks/run.sh            # from any directory
#
# Builds the servers of tools/Benchmarks in release, then for each server in SERVERS below:
# starts it, checks its answers once with nghttp (bodies and grpc-status: 0 in the trailers),
# measures unary Get (1 connection × 1 stream, then × 32 streams), server-streaming Expand and
# its peak RSS, and stops it. Prints one table and writes results/bench-wire.json (repo root).
#
# Environment:
#   BENCH_TLS=1           both servers serve TLS (ALPN h2) with one certificate made here with the
#                         openssl CLI (ECDSA P-256, SAN IP:127.0.0.1); h2load and nghttp connect over
#                         https. Results go to results/bench-wire-tls.json and results/bench-wire-tls/.
#   BENCH_SECONDS=10      measured duration of each of the three loads
#   BENCH_WARMUP=2        warm-up before each unary load (seconds)
#   BENCH_ONLY="a b"      measure only these servers (names from SERVERS)
#   BENCH_NO_BUILD=1      use the binaries already built
#   BENCH_PIN=0           do not pin with taskset
#   BENCH_SERVER_CPUS=1   BENCH_CLIENT_CPUS=0   the taskset CPU lists used when pinning
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$here/.build/release

# name=command: the command is started with `--port 0` appended and must print `LISTENING <port>`.
# A server whose binary is missing is skipped. `hearth` and `grpc-swift` get a ratio column.
SERVERS=(
  "hearth=$bin/hearth-echo-server"
  "grpc-swift=$bin/grpc-swift-echo-server"
)

seconds=${BENCH_SECONDS:-10}
warmup=${BENCH_WARMUP:-2}
expand_count=100000
expand_payload=16
get_text=hearth
get_payload=16

lib=(python3 "$here/benchlib.py")
headers=(-H 'content-type: application/grpc' -H 'te: trailers')
tls=${BENCH_TLS:-0}
suffix=
[[ $tls == 1 ]] && suffix=-tls
out_json=$root/results/bench-wire$suffix.json
logs=$root/results/bench-wire$suffix
rm -rf "$logs"
mkdir -p "$logs"

say() { printf '%s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

tools_needed=(h2load nghttp python3)
[[ $tls == 1 ]] && tools_needed+=(openssl)
for tool in "${tools_needed[@]}"; do
  command -v "$tool" >/dev/null || die "$tool not found (Debian: apt-get install nghttp2-client python3)"
done

# --- pinning --------------------------------------------------------------------------------
server_pin=() client_pin=()
if [[ ${BENCH_PIN:-1} != 0 ]] && command -v taskset >/dev/null && (($(nproc) >= 2)); then
  server_pin=(taskset -c "${BENCH_SERVER_CPUS:-1}")
  client_pin=(taskset -c "${BENCH_CLIENT_CPUS:-0}")
  pinning="server on CPU ${BENCH_SERVER_CPUS:-1}, h2load on CPU ${BENCH_CLIENT_CPUS:-0} (taskset)"
else
  pinning="not pinned"
fi

# --- build ----------------------------------------------------------------------------------
if [[ ${BENCH_NO_BUILD:-0} != 1 ]]; then
  for entry in "${SERVERS[@]}"; do
    read -ra cmd <<<"${entry#*=}"
    product=${cmd[0]##*/}
    [[ ${cmd[0]} == "$bin/$product" ]] || continue
    # Only products that Package.swift declares (a commented-out line does not count).
    grep -Eq "^[[:space:]]*\.executable\(name: \"$product\"" "$here/Package.swift" || continue
    say "building $product (release)..."
    start=$SECONDS
    if ! swift build -c release --package-path "$here" --product "$product" >"$logs/build-$product.log" 2>&1; then
      tail -40 "$logs/build-$product.log" >&2
      die "building $product failed (log: $logs/build-$product.log)"
    fi
    say "  built in $((SECONDS - start)) s"
  done
fi

# --- request bodies -------------------------------------------------------------------------
work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# --- TLS: one certificate for every server --------------------------------------------------
scheme=http transport="h2c" tls_args=()
if [[ $tls == 1 ]]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -keyout "$work/key.pem" -out "$work/cert.pem" -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    >"$logs/openssl.log" 2>&1 || { cat "$logs/openssl.log" >&2; die "openssl could not make a certificate"; }
  scheme=https transport="TLS (ALPN h2, ECDSA P-256 certificate)"
  tls_args=(--tls-cert "$work/cert.pem" --tls-key "$work/key.pem")
fi

"${lib[@]}" request get "$work/get.bin" --text "$get_text" --payload-size "$get_payload"
"${lib[@]}" request expand "$work/expand.bin" --text "" --count "$expand_count" --payload-size "$expand_payload"
"${lib[@]}" request expand "$work/expand-check.bin" --text "check" --count 300 --payload-size 3
get_bytes=$("${lib[@]}" response-size get --text "$get_text" --payload-size "$get_payload")
expand_bytes=$("${lib[@]}" response-size expand --text "" --count "$expand_count" --payload-size "$expand_payload")

# --- one server -----------------------------------------------------------------------------
h2() { # h2 OUT DATA_CHECK ARGS... : h2load pinned, output kept, checked for failures and for the
  # response data bytes (DATA_CHECK: --data-per-request N or --min-data-per-request N), since a
  # gRPC error is still HTTP 200.
  local out=$1 data_check=$2
  shift 2
  if ! "${client_pin[@]}" h2load -t1 "${headers[@]}" "$@" >"$out" 2>&1; then
    cat "$out" >&2
    return 1
  fi
  read -ra data_check <<<"$data_check"
  "${lib[@]}" h2load --check "${data_check[@]}" "$out" >/dev/null || { cat "$out" >&2; return 1; }
}

cpu_ticks() { # the server's user + system CPU time so far, in clock ticks
  awk '{ print $14 + $15 }' "/proc/$server_pid/stat"
}

measure() { # measure NAME COMMAND...
  local name=$1
  shift
  local dir=$logs/$name
  mkdir -p "$dir"

  "${server_pin[@]}" "$@" --port 0 "${tls_args[@]}" >"$dir/server.out" 2>"$dir/server.err" &
  server_pid=$!
  local port=
  for _ in $(seq 300); do
    port=$(awk '$1 == "LISTENING" { print $2; exit }' "$dir/server.out")
    [[ -n $port ]] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$dir/server.err" >&2; say "$name exited before listening"; return 1; }
    sleep 0.1
  done
  [[ $port =~ ^[0-9]+$ ]] || { say "$name printed no 'LISTENING <port>' line within 30 s"; return 1; }
  local url=$scheme://127.0.0.1:$port/hearth.echo.v1.Echo
  say "$name: pid $server_pid, port $port"

  # Correctness, once: message bodies, metadata echo, and grpc-status: 0 in the trailers.
  nghttp "${headers[@]}" -H 'x-echo-bench: yes' -d "$work/get.bin" "$url/Get" \
    | "${lib[@]}" check get --text "$get_text" --payload-size "$get_payload" >&2 || return 1
  nghttp "${headers[@]}" -d "$work/expand-check.bin" "$url/Expand" \
    | "${lib[@]}" check expand --text check --count 300 --payload-size 3 >&2 || return 1
  local method
  for method in Get Expand; do
    local body=$work/get.bin
    [[ $method == Expand ]] && body=$work/expand-check.bin
    nghttp -v "${headers[@]}" -H 'x-echo-bench: yes' -d "$body" "$url/$method" >"$dir/nghttp-$method.txt" 2>&1 || true
    local want
    for want in 'grpc-status: 0' 'x-echo-bench: yes' 'x-echo-trailer-bench: yes'; do
      grep -aq "recv (stream_id=[0-9]*) $want\$" "$dir/nghttp-$method.txt" \
        || { say "$name $method: no '$want' in the response (see $dir/nghttp-$method.txt)"; return 1; }
    done
  done
  say "  checked: Get and Expand bodies, grpc-status: 0, x-echo- metadata"

  say "  unary Get, 1 connection x 1 stream, ${warmup}s warm-up + ${seconds}s"
  h2 "$dir/c1m1.txt" "--min-data-per-request $get_bytes" -c1 -m1 -D "$seconds" --warm-up-time "$warmup" -d "$work/get.bin" "$url/Get" || return 1
  say "  unary Get, 1 connection x 32 streams, ${warmup}s warm-up + ${seconds}s"
  # The server's CPU time over the measured window (from the end of the warm-up), beside its calls: a
  # figure that a slower machine moves far less than throughput.
  (sleep "$warmup" && cpu_ticks >"$dir/c1m32.cpu-start") &
  local sampler=$!
  h2 "$dir/c1m32.txt" "--min-data-per-request $get_bytes" -c1 -m32 -D "$seconds" --warm-up-time "$warmup" -d "$work/get.bin" "$url/Get" || return 1
  cpu_ticks >"$dir/c1m32.cpu-end"
  wait "$sampler" || true

  # Streaming: one timed call (also the warm-up) sizes the run to about BENCH_SECONDS.
  h2 "$dir/stream-calibrate.txt" "--data-per-request $expand_bytes" -c1 -m1 -n1 -d "$work/expand.bin" "$url/Expand" || return 1
  local n
  n=$(python3 -c 'import json, math, sys
r = json.loads(sys.argv[1])
print(min(10000, max(3, math.ceil(float(sys.argv[2]) / max(r["seconds"], 1e-6)))))' \
    "$("${lib[@]}" h2load "$dir/stream-calibrate.txt")" "$seconds") || return 1
  say "  server streaming Expand (count=$expand_count, payload_size=$expand_payload), $n calls in sequence"
  cpu_ticks >"$dir/stream.cpu-start"
  h2 "$dir/stream.txt" "--data-per-request $expand_bytes" -c1 -m1 -n "$n" -d "$work/expand.bin" "$url/Expand" || return 1
  cpu_ticks >"$dir/stream.cpu-end"

  kill -0 "$server_pid" 2>/dev/null || { say "$name died during the run"; return 1; }
  awk '$1 == "VmHWM:" { print $2 }' "/proc/$server_pid/status" >"$dir/hwm_kb" || return 1
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}

# --- run ------------------------------------------------------------------------------------
say "pinning: $pinning"
loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
measured=()
for entry in "${SERVERS[@]}"; do
  name=${entry%%=*}
  read -ra cmd <<<"${entry#*=}"
  if [[ -n ${BENCH_ONLY:-} && " $BENCH_ONLY " != *" $name "* ]]; then continue; fi
  if [[ ! -x ${cmd[0]} ]]; then
    say "skipping $name: ${cmd[0]} is not built"
    continue
  fi
  measure "$name" "${cmd[@]}" || die "measuring $name failed (logs: $logs/$name)"
  measured+=("$name")
done
((${#measured[@]})) || die "no server was measured"

meta=$(python3 -c 'import json, sys
keys = ("date", "commit", "host", "cpus", "loadavg_at_start", "pinning", "h2load", "bench_seconds", "warmup_seconds", "expand_count", "expand_payload_size", "get_text", "get_payload_size", "transport")
vals = sys.argv[1:]
d = dict(zip(keys, vals))
for k in ("cpus", "bench_seconds", "warmup_seconds", "expand_count", "expand_payload_size", "get_payload_size"):
    d[k] = float(d[k]) if "." in d[k] else int(d[k])
print(json.dumps(d))' \
  "$(date -u +%FT%TZ)" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$(uname -srm)" "$(nproc)" "$loadavg" "$pinning" "$(h2load --version | head -1)" \
  "$seconds" "$warmup" "$expand_count" "$expand_payload" "$get_text" "$get_payload" "$transport")

echo
echo "HearthWire benchmark: echo service over $transport on 127.0.0.1; $pinning; ${seconds}s per load"
echo "load average at start: $loadavg (other work on the machine skews the figures)"
echo "unary: Get with a ${#get_text}-char text and ${get_payload}-byte payload; stream: Expand count=$expand_count payload_size=$expand_payload"
echo
"${lib[@]}" report "$logs" "$out_json" --servers "${measured[@]}" --count "$expand_count" --meta "$meta"
echo
echo "JSON: ${out_json#"$root"/}   h2load/nghttp logs: ${logs#"$root"/}/"

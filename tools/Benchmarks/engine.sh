#!/usr/bin/env bash
# The hub's engine alone, in process (HubEngine: no sockets, no HTTP/2, no other processes):
# change throughput fanned out to 0/1/10/100 in-process watchers, memory per device, and cold start
# from a filled SQLite data directory. There is no peer: nothing else runs Hearth's engine.
#
#   tools/Benchmarks/engine.sh                    # 10k and 100k devices, 0/1/10/100 subscribers, 5 s windows
#   tools/Benchmarks/engine.sh --quick            # 1k and 10k devices, 2 s windows (about 40 s)
#   tools/Benchmarks/engine.sh --devices 50k --subscribers 0,10 --seconds 10
#
# Builds hearth-engine-bench in release (tools/Benchmarks/.build), runs it with the arguments given
# (`--help` lists them), prints its tables and writes results/bench-engine.json at the repo root
# unless `--json PATH` is given.
#
# Environment:
#   BENCH_NO_BUILD=1      use the binary already built
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$here/.build/release/hearth-engine-bench
say() { printf '%s\n' "$*" >&2; }

if [[ ${BENCH_NO_BUILD:-0} != 1 ]]; then
  mkdir -p "$root/results"
  log=$root/results/build-hearth-engine-bench.log
  say "building hearth-engine-bench (release)..."
  start=$SECONDS
  if ! swift build -c release --package-path "$here" --product hearth-engine-bench >"$log" 2>&1; then
    tail -40 "$log" >&2
    say "error: building hearth-engine-bench failed (log: $log)"
    exit 1
  fi
  say "  built in $((SECONDS - start)) s"
fi
[[ -x $bin ]] || { say "error: $bin is not built (unset BENCH_NO_BUILD)"; exit 1; }

args=("$@")
wants_json=1
# Only the default `run` command takes --json; `measure` and `cold-start` (used by run) do not.
case ${args[0]:-} in "" | run | -*) ;; *) wants_json=0 ;; esac
for arg in "${args[@]}"; do
  case $arg in --json | --json=* | -h | --help | help) wants_json=0 ;; esac
done
((wants_json)) && args+=(--json "$root/results/bench-engine.json")

BENCH_COMMIT=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
export BENCH_COMMIT
exec "$bin" "${args[@]}"

#!/usr/bin/env bash
# Builds the libFuzzer targets of this package (debug, with libFuzzer and AddressSanitizer) and runs each
# for a bounded time on a copy of its seed corpus, so the tree stays clean. Crash, timeout and out-of-memory
# reproducers go to results/fuzz/<Target>/ (gitignored). README.md beside this file says more.
#
# Usage: tools/fuzz/run.sh [seconds-per-target] [Target ...]
#        (default 30 s, all targets; e.g. `tools/fuzz/run.sh 600` for a long run)
#
# Prints one line per target (runs, executions per second, corpus before → after, peak memory, crashes)
# and exits non-zero if any target crashed, timed out or ran out of memory, or if a reproducer under
# regressions/ still fails.
set -euo pipefail
cd "$(dirname "$0")"
fuzz_dir=$(pwd)
repo=$(cd ../.. && pwd)

seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(FuzzWireFraming FuzzVendorSchema FuzzValueValidator FuzzDriverMessage)
fi

# Corpus copies and FuzzDriverMessage's database in memory when /dev/shm exists (fsync is then free).
tmp_base=${TMPDIR:-/tmp}
if [ -d /dev/shm ] && [ -w /dev/shm ]; then tmp_base=/dev/shm; fi
work=$(mktemp -d "$tmp_base/hearth-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Both fuzzer flags (Package.swift says why). One product at a time: `fuzz-seeds` has a main of its own and
# does not link against libFuzzer's.
build=(swift build -c debug --scratch-path .build-fuzz --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer)
for target in "${targets[@]}"; do
  if ! "${build[@]}" --product "$target" >"$work/build.log" 2>&1; then
    grep -E "error" "$work/build.log" | grep -v "Cannot export" | head -20 >&2
    echo "fuzz: building $target failed" >&2
    exit 1
  fi
done
bin=$("${build[@]}" --show-bin-path)

stamp=$(date +%Y%m%d-%H%M%S)

# Leaks are not checked: LeakSanitizer reports objects that Swift globals hold for the life of the process
# (seen: the builtin catalog's value types, built on first use) as direct leaks, on every run. Lost objects
# the targets care about are counted instead (nghttp2 sessions, budget bytes, calls). The Swift runtime's
# own backtracer is off so that libFuzzer sees the crash signal itself.
export ASAN_OPTIONS=detect_leaks=0:handle_abort=1:symbolize=1
export SWIFT_BACKTRACE=enable=no
# FuzzDriverMessage keeps its engine's database here.
export HEARTH_FUZZ_TMP="$work"

failed=0
summary=()
for target in "${targets[@]}"; do
  results="$repo/results/fuzz/$target"
  mkdir -p "$results" "$work/$target/corpus"
  cp "$fuzz_dir/corpus/$target/"* "$work/$target/corpus/"
  seeds=$(ls "$work/$target/corpus" | wc -l)

  # Known reproducers first: each must now run clean.
  regressions=0
  if [ -d "$fuzz_dir/regressions/$target" ] && [ -n "$(ls -A "$fuzz_dir/regressions/$target")" ]; then
    if ! "$bin/$target" -runs=1 -rss_limit_mb=2048 -detect_leaks=0 "$fuzz_dir/regressions/$target/"* \
      >"$work/$target/regressions.log" 2>&1; then
      regressions=1
      cp "$work/$target/regressions.log" "$results/$stamp-regressions.log"
      echo "$target: a reproducer under regressions/$target still fails (log: results/fuzz/$target/$stamp-regressions.log)" >&2
      grep -E "^(Running|Fatal error|SUMMARY|==[0-9]+==ERROR)" "$work/$target/regressions.log" | head -10 >&2 || true
    fi
  fi

  set +e
  "$bin/$target" "$work/$target/corpus" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -detect_leaks=0 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$results/$stamp-" >"$work/$target/fuzz.log" 2>&1
  status=$?
  set -e

  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target/fuzz.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$target/fuzz.log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/$target/fuzz.log" | tail -1)
  corpus=$(ls "$work/$target/corpus" | wc -l)
  crashes=$(find "$results" -maxdepth 1 -name "$stamp-*" ! -name "*.log" | wc -l)
  if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi
  line="$target: ${runs:-?} runs (${rate:-?}/s), corpus $seeds → $corpus, peak RSS ${rss:-?} MB, crashes $crashes"
  [ "$regressions" -ne 0 ] && line="$line, regressions failing"
  echo "$line"
  summary+=("$line")

  if [ "$crashes" -ne 0 ]; then
    cp "$work/$target/fuzz.log" "$results/$stamp-fuzz.log"
    echo "  reproducer(s) and log in results/fuzz/$target/ ($stamp-*); replay: $bin/$target <file>" >&2
    grep -E "^(Fatal error|SUMMARY|==[0-9]+==ERROR|.*fuzz invariant)" "$work/$target/fuzz.log" | head -5 | sed 's/^/  /' >&2 || true
    failed=1
  fi
  [ "$regressions" -ne 0 ] && failed=1
done

echo "fuzz: ${#targets[@]} targets, ${seconds} s each"
exit $failed

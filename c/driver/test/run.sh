#!/usr/bin/env bash
# Builds libhearth-driver and runs all its tests; tools/test.sh calls it (HEARTH_SKIP_CDRIVER=1 skips it).
#
#   c/driver/test/run.sh
#
# 1. builds the library, the example driver and the test programs with -Wall -Wextra -Werror, plain
#    (build/) and under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/);
# 2. the unit tests, in both builds;
# 3. the decoder fuzz target, bounded: libFuzzer for CDRIVER_FUZZ_SECONDS (20) when a clang with
#    -fsanitize=fuzzer is found (CLANG, clang on PATH, or the Swift toolchain's), else a random-input run
#    of 200,000 inputs under the sanitizers; crash reproducers go to results/cdriver-fuzz/;
# 4. the hub tests (test/hub_test.py) against the debug hub (HEARTH_HUB_BIN, default .build/debug/hearth-hub):
#    once with the plain build and once with the sanitizer build, leaks included.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
driver=$(cd "$here/.." && pwd)
root=$(cd "$driver/../.." && pwd)
hub=${HEARTH_HUB_BIN:-$root/.build/debug/hearth-hub}
python=$root/tools/interop/.venv/bin/python
fuzz_seconds=${CDRIVER_FUZZ_SECONDS:-20}

say() { printf 'cdriver: %s\n' "$*"; }
die() { say "$*" >&2; exit 1; }

# cc is gcc on Debian; a machine with only the Swift toolchain has its clang.
command -v "${CC:-cc}" >/dev/null || export CC=clang
cd "$driver"
say "build (plain and sanitized; -Wall -Wextra -Werror)"
make -s -j2 all tests >/dev/null
make -s -j2 SANITIZE=1 all tests >/dev/null

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

say "unit tests"
build/unit
build-asan/unit

# The fuzz target, bounded. Its work files live in a temporary folder removed on exit.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang=${CLANG:-}
if [[ -z $clang ]]; then
  for candidate in clang "$(dirname "$(command -v swift 2>/dev/null || echo /nonexistent/swift)")/clang"; do
    if command -v "$candidate" >/dev/null 2>&1 &&
      echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
      "$candidate" -x c -fsanitize=fuzzer -o "$work/probe" - >/dev/null 2>&1; then
      clang=$(command -v "$candidate")
      break
    fi
  done
fi
if [[ -n $clang ]]; then
  say "fuzz: libFuzzer, $fuzz_seconds s ($clang)"
  linker=()
  [[ -x $(dirname "$clang")/ld.lld ]] && linker=(-fuse-ld=lld) # the Swift toolchain's gold warns at length
  mkdir -p build-fuzz "$work/corpus" "$root/results/cdriver-fuzz"
  "$clang" "${linker[@]}" -g -O1 -std=c11 -Wall -Wextra -Werror -Wno-missing-field-initializers \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Igen -Isrc \
    $(pkg-config --cflags libprotobuf-c libnghttp2) -o build-fuzz/fuzz-hub-message test/fuzz_hub_message.c src/*.c \
    gen/hearth/v1/*.c $(pkg-config --libs libprotobuf-c libnghttp2) -lpthread
  build/fuzz-random --write-seeds "$work/corpus" >/dev/null
  if ! build-fuzz/fuzz-hub-message -max_total_time="$fuzz_seconds" -max_len=8192 -rss_limit_mb=1024 \
    -artifact_prefix="$root/results/cdriver-fuzz/" "$work/corpus" >"$work/fuzz.log" 2>&1; then
    tail -40 "$work/fuzz.log"
    die "the fuzz target failed (reproducer in results/cdriver-fuzz/)"
  fi
  say "fuzz: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$work/fuzz.log" | tail -1)s, no crash"
else
  say "fuzz: no clang with libFuzzer; bounded random inputs under the sanitizers"
  build-asan/fuzz-random 200000
fi

[[ -x $hub ]] || die "no hub at $hub: build it first (swift build), or set HEARTH_HUB_BIN"
[[ -x $python ]] || die "no $python: run tools/setup.sh (tools/interop/setup.sh)"
say "hub tests, plain build"
"$python" test/hub_test.py --hub-bin "$hub" --build build
say "hub tests, sanitizer build"
"$python" test/hub_test.py --hub-bin "$hub" --build build-asan
say "all passed"

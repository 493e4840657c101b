#!/usr/bin/env bash
# Runs the wire tests and a subset of the hub tests under AddressSanitizer: a debug build of the tests with
# `--sanitize=address` in its own scratch folder (.build-asan, gitignored), then `swift test` on it.
#
# Usage: tools/asan.sh            (the subset below)
#        tools/asan.sh --all      (every HearthWireTests and HearthHubTests test; see the figures below)
#        tools/asan.sh --filter X (any swift test filter instead)
#
# What ASan finds here is what Swift's own checks cannot: misuse of the unsafe pointers and buffers that
# reach C (nghttp2's session, its send/receive buffers and callbacks; SQLite through GRDB) and of
# `UnsafeRawBufferPointer`/`ByteBuffer` views in the framing and watch encoding.
#
# The subset: every HearthWireTests test (in-process client ↔ server over loopback, in-memory nghttp2
# pairs, grpcio interop: the unsafe code's home), and the HearthHubTests suites that drive the engine, the
# watch encoding, the driver and client services and the SDK's queries and mutations in process. Left out
# are the suites whose time goes into starting child processes (shipped drivers, supervision, hearthctl,
# the camera suites, the load tool) and the SDK suites that assert timings (errors at deadlines,
# publisher coalescing): they reach no unsafe code the others do not, and under ASan's slowdown they are
# the ones that fail on time rather than on memory. Measured on the 2-core machine, after the build:
#
#   subset, 188 tests today, at full width   42 s alone; beside a whole `swift test` run, 27 connect
#                                            timeouts (and, in CI, a run that never ended)
#   subset at width 4 (below)                70 s beside a whole `swift test` run, passed, no timeout
#
# The build (`--build-tests`, every product, from cold) is the cost that matters: 15 minutes on a fresh
# clone (2026-11-28), about as long as the plain debug build.
#
# Leak checking is off (ASAN_OPTIONS=detect_leaks=0): with it on, every run fails at exit on leaks that are
# not ours (seen here: XCTest's own runner objects, `XCTestSuiteRun` and those of `XCTMain`, reported on
# a filter that ran one small suite), and the fuzz targets see what Swift globals hold for the life of the
# process (the builtin catalog's value types) reported as direct leaks. Lost nghttp2 sessions are counted
# by the wire tests instead (WireServer.statistics.sessionsAlive).
set -euo pipefail
cd "$(dirname "$0")/.."

subset='HearthWireTests|HearthHubTests\.(HubEngine|HubWatchTests|HubDriverTests|HubAccessTests|HubHostileInputTests|HubMetricsTests|HubGRPCIOTests|DeviceStoreTests|SDKQueryTests|SDKMutationTests|HomeTests)'
filter=(--filter "$subset")
case "${1:-}" in
  --all) filter=(--filter 'HearthWireTests|HearthHubTests') ;;
  --filter) filter=(--filter "$2") ;;
  "") ;;
  *) echo "usage: tools/asan.sh [--all | --filter X]" >&2; exit 2 ;;
esac

export ASAN_OPTIONS=detect_leaks=0
# At most four tests at a time. Swift Testing otherwise starts every test of the subset at once in this one
# process: under ASan's slowdown dozens of hubs, drivers and clients then share the process's two event loops,
# and a loop that one handler keeps busy for seconds makes other tests' loopback connects time out (seen in
# CI: ten "Connect timeout (10 s)" in one second, then a run that never ended). With four, the subset passed
# with no such timeout even beside a whole `swift test` run (70 s against 42 s alone at full width).
# HEARTH_ASAN_WIDTH=N sets another width.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${HEARTH_ASAN_WIDTH:-4}
# Swift's backtracer would catch the crash signal before ASan's report is complete.
export SWIFT_BACKTRACE=enable=no

echo "asan: building tests (.build-asan)"
swift build --build-tests --sanitize=address --scratch-path .build-asan 2>&1 | grep -E "error|Compiling|Build complete" | grep -v "Cannot export" | tail -3
echo "asan: swift test ${filter[*]}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
tools/bounded.sh 600 "$log" swift test --skip-build --sanitize=address --scratch-path .build-asan --parallel "${filter[@]}"

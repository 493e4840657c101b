#!/usr/bin/env bash
# Sets up everything (tools/setup.sh) and runs every test and check:
# generated code is current, module layering holds, `swift test`, the dashboard in a browser, then the abuse
# suite against the hub,
# a bounded fuzz run and the wire and hub tests under AddressSanitizer.
#
# Usage: tools/test.sh [extra swift test arguments, e.g. --filter Echo]
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage prints when it starts. The Swift test runs are bounded (tools/bounded.sh: a hang fails its stage
# and names the tests that never finished, instead of holding CI until its own limit); each bound is many
# times a normal run on the 2-core machine.
started=$SECONDS
stage() { echo "== $1 (at $((SECONDS - started)) s)"; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

tools/setup.sh

stage "generated code"
tools/check-generated.sh
python3 tools/catalog/generate.py --check

if [ -x ../shared/hooks/layering ]; then
  stage "module layering"
  ../shared/hooks/layering
fi

stage "swift build"
swift build --build-tests

stage "swift test"
# At most eight tests at a time (Swift Testing's default is all of them at once): the in-process hubs, drivers
# and clients share the process's two event loops, and at full width a loaded machine made their loopback
# connects time out. Eight is also faster here: 47 s against 60–73 s for the 462 tests. HEARTH_TEST_WIDTH=N
# sets another width.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${HEARTH_TEST_WIDTH:-8} \
  tools/bounded.sh 900 "$logs/test.log" swift test --skip-build --parallel "$@"

# The web dashboard in headless Chromium (Playwright) against a real hub with the demo drivers, from the debug
# build above (Docs/Dashboard.md). HEARTH_SKIP_DASHBOARD=1 skips it.
if [ "${HEARTH_SKIP_DASHBOARD:-0}" != 1 ]; then
  stage "dashboard in a browser"
  tools/dashboard/test.sh "$(swift build --show-bin-path)"
fi

# Hardening checks, after the tests (HEARTH_SKIP_ABUSE=1 / HEARTH_SKIP_FUZZ=1 / HEARTH_SKIP_ASAN=1 skip
# them while iterating). The abuse suite attacks the debug hub just built, one fresh hub per case
# (Docs/Security.md, tools/abuse/README.md).
if [ "${HEARTH_SKIP_ABUSE:-0}" != 1 ]; then
  stage "abuse and faults"
  tools/abuse/run.sh
fi
if [ "${HEARTH_SKIP_FUZZ:-0}" != 1 ]; then
  stage "fuzz (bounded)"
  tools/fuzz/run.sh 30
fi
if [ "${HEARTH_SKIP_ASAN:-0}" != 1 ]; then
  stage "asan"
  tools/asan.sh
fi

# The C driver SDK (c/driver, Docs/CDriver.md): built with -Wall -Wextra -Werror, its unit tests, a bounded
# fuzz run of the decoder, and its tests against the debug hub built above, plain and under ASan + UBSan.
# HEARTH_SKIP_CDRIVER=1 skips it.
if [ "${HEARTH_SKIP_CDRIVER:-0}" != 1 ]; then
  stage "C driver SDK"
  c/driver/test/run.sh
fi
echo "== all passed (in $((SECONDS - started)) s)"

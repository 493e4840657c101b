#!/usr/bin/env bash
# Sets up everything (tools/setup.sh) and runs every test and check:
# generated code is current, module layering holds, and `swift test`.
#
# Usage: tools/test.sh [extra swift test arguments, e.g. --filter Echo]
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh

echo "== generated code"
tools/check-generated.sh
python3 tools/catalog/generate.py --check

if [ -x ../shared/hooks/layering ]; then
  echo "== module layering"
  ../shared/hooks/layering
fi

echo "== swift build"
swift build --build-tests

echo "== swift test"
swift test --skip-build --parallel "$@"

# Hardening checks, after the tests (HEARTH_SKIP_FUZZ=1 / HEARTH_SKIP_ASAN=1 skip them while iterating).
if [ "${HEARTH_SKIP_FUZZ:-0}" != 1 ]; then
  echo "== fuzz (bounded)"
  tools/fuzz/run.sh 30
fi
if [ "${HEARTH_SKIP_ASAN:-0}" != 1 ]; then
  echo "== asan"
  tools/asan.sh
fi

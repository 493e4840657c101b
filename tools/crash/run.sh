#!/usr/bin/env bash
# kill -9 trials of the hearth-hub process under mixed load (renames, driver reports, a watcher), with a
# restart and a check after each: acknowledged renames lost, revisions reused, silent gaps for a resuming
# watcher. CI runs 3 trials inside `swift test`; this runs as many as you ask and prints the totals.
#
#   tools/crash/run.sh [TRIALS]      (default 100; debug build of the tests and of hearth-hub)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
trials=${1:-100}
[[ $trials =~ ^[0-9]+$ && $trials -gt 0 ]] || { echo "crash: '$trials' is not a positive integer" >&2; exit 2; }
cd "$root"
swift build --build-tests >&2
started=$(date +%s)
HEARTH_CRASH_TRIALS=$trials swift test --skip-build --filter 'HubCrashTrialsTests' 2>&1 |
  tee /tmp/hearth-crash-trials.log | grep -E 'CRASH-TRIALS|✘|passed after|failed after' || true
echo "commit $(git rev-parse --short HEAD), $trials trials in $(($(date +%s) - started)) s (full output: /tmp/hearth-crash-trials.log)"
grep -q 'CRASH-TRIALS' /tmp/hearth-crash-trials.log && ! grep -q '✘' /tmp/hearth-crash-trials.log

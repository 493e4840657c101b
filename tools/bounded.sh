#!/usr/bin/env bash
# Runs a test command with a time bound, its output also kept in a log. When the bound passes, the command
# and everything it started are stopped (TERM, then KILL 30 s later), and the Swift Testing tests that had
# started and never finished are named, so that a hang fails one stage with a lead instead of holding CI
# until its own limit.
#
# Usage: tools/bounded.sh SECONDS LOG command [argument ...]
# Exit status: the command's; 124 (or 137 after KILL) when the bound passed.
set -uo pipefail
seconds=$1 log=$2
shift 2
# Into the log, which is followed until the command ends: a process it started in a group of its own (a
# supervised driver) and left behind may still hold the output open, and must not keep this waiting.
# The log exists before the follower starts: `tail -f` of a file not yet made by the redirect below gave up
# ("cannot open"), and the stage's output was missing from the CI log (the command still ran).
: >"$log"
timeout -k 30 "$seconds" "$@" >"$log" 2>&1 &
pid=$!
# timeout runs the command in a process group of its own, which a terminal's Ctrl-C does not reach: pass it
# on. (Bash runs a trap only between commands, hence the follower in the background and `wait`.)
trap 'kill -TERM "$pid" 2>/dev/null' INT TERM
tail -n +1 -f --pid="$pid" "$log" &
follower=$!
while :; do
  wait "$pid"
  status=$?
  kill -0 "$pid" 2>/dev/null || break
done
wait "$follower"
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "error: '$*' did not end within $seconds s. Tests started and never finished:" >&2
  # Swift Testing prints `◇ Test "name" started.` and later `✔ Test "name" passed…`, `✘ … failed…` or
  # `… skipped`; a test's cases and issues say `Test case …` or `recorded`, and are not ends.
  sed -nE 's/^.*Test "(.*)" started\.$/S\t\1/p; s/^.*Test "(.*)" (with [0-9]+ test cases? )?(passed|failed|skipped).*/E\t\1/p' "$log" |
    awk -F'\t' '$1 == "S" { open[$2] = 1 } $1 == "E" { delete open[$2] } END { for (t in open) print "  " t }' >&2
fi
exit "$status"

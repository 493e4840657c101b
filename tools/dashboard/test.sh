#!/usr/bin/env bash
# The dashboard's browser test: a real hub with the demo drivers, headless Chromium driven by Playwright.
#
#   tools/dashboard/test.sh <bin-dir> [dashboard_test.py options, e.g. --only toggle_reaches_driver]
#
# <bin-dir> holds hearth-hub, the hearth-driver-* executables and hearthctl (e.g. .build/release). The hub
# runs with deploy/hearth-hub.demo.json on 127.0.0.1:0 in a temporary data dir and serves the dashboard it
# embeds; HEARTH_DASHBOARD_DIR=<dir> makes it serve that folder instead (--dashboard-dir).
# Screenshots and the hub's log go to $HEARTH_DASHBOARD_ARTIFACTS (default
# .build/dashboard-artifacts). HEARTH_DASHBOARD_DOCS=1 also refreshes Docs/dashboard-home.png.
# The hub and its drivers are always stopped at the end.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ $# -ge 1 && -d $1 ]] || { echo "usage: $0 <bin-dir> [test options]" >&2; exit 64; }
bin_dir=$(cd "$1" && pwd)
shift
for exe in hearth-hub hearthctl hearth-driver-lights hearth-driver-climate hearth-driver-vendor hearth-driver-camera; do
  [[ -x $bin_dir/$exe ]] || { echo "dashboard: $bin_dir/$exe is missing" >&2; exit 1; }
done

python=$("$root/tools/dashboard/setup.sh")
artifacts=${HEARTH_DASHBOARD_ARTIFACTS:-$root/.build/dashboard-artifacts}
rm -rf "$artifacts"
mkdir -p "$artifacts"
work=$(mktemp -d)
hub_pid=""

stop() {
  local pid=$1
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  echo "dashboard: pid $pid did not stop in 10 s; killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  # SIGTERM makes the hub stop its drivers (each in its own process group) before it exits; were it
  # killed, the drivers would still see their standard input close and stop.
  stop "$hub_pid"
  cp "$work/hub.log" "$artifacts/hub.log" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

flags=()
[[ -n ${HEARTH_DASHBOARD_DIR:-} ]] && flags+=(--dashboard-dir "$(cd "$HEARTH_DASHBOARD_DIR" && pwd)")
"$bin_dir/hearth-hub" --config "$root/deploy/hearth-hub.demo.json" --data-dir "$work/data" --socket "$work/hub.sock" \
  --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 ${flags[@]+"${flags[@]}"} </dev/null >"$work/hub.out" 2>"$work/hub.log" &
hub_pid=$!

# `LISTENING <address> …`, the address possibly written as [IPv4]host/host:port.
address() { sed -n "s/^$1 \([^ ]*\).*/\1/p" "$work/hub.out" | head -1 | sed 's|^.*/||; s|^\[[^]]*\]||'; }
for _ in $(seq 1 300); do
  [[ -n $(address LISTENING) ]] && break
  kill -0 "$hub_pid" 2>/dev/null || { echo "dashboard: the hub exited:" >&2; tail -20 "$work/hub.log" >&2; exit 1; }
  sleep 0.1
done
listen=$(address LISTENING)
[[ -n $listen ]] || { echo "dashboard: the hub printed no LISTENING line in 30 s" >&2; exit 1; }
url="http://$listen/"

echo "dashboard: hub on $listen, page at $url, artifacts in $artifacts"

docs=()
[[ -n ${HEARTH_DASHBOARD_DOCS:-} ]] && docs=(--docs-screenshot "$root/Docs/dashboard-home.png")
status=0
(cd "$root/tools/dashboard" && timeout 600 "$python" dashboard_test.py --url "$url" --hub "unix:$work/hub.sock" \
  --bin-dir "$bin_dir" --artifacts "$artifacts" ${docs[@]+"${docs[@]}"} "$@") || status=$?
echo "dashboard: screenshots in $artifacts"
exit $status

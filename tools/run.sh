#!/usr/bin/env bash
# Sets up everything (tools/setup.sh), builds the hub, the drivers and
# hearthctl in release mode, and runs the hub with the demo home (its config
# starts the simulated drivers) in the foreground on 127.0.0.1:7070 and a Unix
# socket. Ctrl-C (or SIGTERM) stops it and its drivers gracefully.
#
# Usage: tools/run.sh [hearth-hub options, e.g. --listen 127.0.0.1:0]
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh
# The hub and every driver and tool: the demo config starts the drivers from the same folder.
swift build -c release
data_dir="${HEARTH_DATA_DIR:-$PWD/.hearth}"
mkdir -p "$data_dir"

cat <<MSG
Starting hearth-hub with the demo home.
Dashboard: http://127.0.0.1:7070/   (sign in with the token demo-admin)
In another terminal, watch and control it:
  export HEARTH_TOKEN=demo-admin
  .build/release/hearthctl devices
  .build/release/hearthctl watch
  .build/release/hearthctl drivers
Metrics: http://127.0.0.1:7071/metrics   Health: http://127.0.0.1:7071/healthz
MSG
exec .build/release/hearth-hub --config deploy/hearth-hub.demo.json --data-dir "$data_dir" --socket "$data_dir/hub.sock" "$@"

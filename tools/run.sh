#!/usr/bin/env bash
# Sets up everything (tools/setup.sh), builds hearth-hub in release mode and
# runs it in the foreground on 127.0.0.1:7070 and a Unix socket. Ctrl-C (or
# SIGTERM) stops it gracefully.
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
Starting hearth-hub. In another terminal, ask it whether it serves:
  tools/interop/.venv/bin/python tools/interop/health_check.py 127.0.0.1:7070
MSG
exec .build/release/hearth-hub --config deploy/hearth-hub.demo.json --data-dir "$data_dir" --socket "$data_dir/hub.sock" "$@"

#!/usr/bin/env bash
# Runs the hub's fault and abuse suite (tools/abuse/README.md) against a built hearth-hub
# (default .build/debug/hearth-hub; --hub PATH or HEARTH_HUB to choose). It builds nothing.
#
# Usage: tools/abuse/run.sh [CASE ...] [--long] [--hub PATH] [--out DIR] [--wait-for-hub SECONDS] [--list]
# Exit status: 0 every case passed, 1 a case failed, 2 the suite could not run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# The interop venv (grpcio, h2) and the generated stubs; idempotent. Its last line is the venv's python.
python="$("$root/tools/interop/setup.sh" | tail -n 1)"
exec "$python" "$here/run.py" "$@"

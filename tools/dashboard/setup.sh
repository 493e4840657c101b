#!/usr/bin/env bash
# Installs what the dashboard's browser test needs, idempotently, and prints the Python to run it with:
# Debian's chromium package (apt-get, when missing) and a virtual environment in tools/dashboard/.venv with
# the pinned requirements.txt (Playwright, plus tools/interop's grpcio and protobuf); the Python stubs of
# Protos/ come from tools/interop/setup.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO=sudo

if ! command -v chromium >/dev/null 2>&1; then
  echo "dashboard: installing chromium" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

"$root/tools/interop/setup.sh" >/dev/null

venv=$here/.venv
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv" || { echo "dashboard: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
fi
stamp=$venv/.requirements.sha
want=$(cat "$here/requirements.txt" "$root/tools/interop/requirements.txt" | sha256sum | cut -d' ' -f1)
if [[ $(cat "$stamp" 2>/dev/null) != "$want" ]]; then
  (cd "$here" && "$venv/bin/pip" install -q --disable-pip-version-check -r requirements.txt) >&2
  echo "$want" >"$stamp"
fi
echo "$venv/bin/python"

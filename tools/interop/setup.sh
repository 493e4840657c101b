#!/usr/bin/env bash
# Creates tools/interop/.venv with pinned grpcio and generates Python stubs
# from Protos/ into tools/interop/gen. Idempotent: reinstalls only when
# requirements.txt changed, regenerates only when a .proto changed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$here/.venv"
gen="$here/gen"

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" || { echo "interop: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
fi
stamp="$venv/.requirements.sha"
want=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi

# Our own packages, and grpc.testing (the interop protos). grpc.health.v1 comes from grpcio-health-checking
# and grpc.reflection from grpcio-reflection. gen/grpc/testing is not importable as it stands (grpcio owns the
# grpc package): common.py adds gen/grpc to grpc.__path__.
protos=$(cd "$root/Protos" && { find hearth -name '*.proto'; find grpc/testing -name '*.proto'; } | sort)
gen_stamp="$gen/.protos.sha"
want_gen=$(cd "$root/Protos" && cat $protos | sha256sum | cut -d' ' -f1)
if [ "$(cat "$gen_stamp" 2>/dev/null)" != "$want_gen" ]; then
  rm -rf "$gen"
  mkdir -p "$gen"
  (cd "$root/Protos" && "$venv/bin/python" -m grpc_tools.protoc -I. --python_out="$gen" --grpc_python_out="$gen" $protos)
  echo "$want_gen" > "$gen_stamp"
fi
echo "$venv/bin/python"

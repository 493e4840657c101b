#!/usr/bin/env bash
# Installs everything Hearth needs on a Debian bookworm machine with Swift 6.3
# already on PATH, idempotently: Debian packages (upgrading libnghttp2 to the
# build that carries the rapid-reset and CONTINUATION backports) and the
# Python grpcio environment used by the interop tests.
#
# Usage: tools/setup.sh            (safe to run again; skips what is in place)
set -euo pipefail
cd "$(dirname "$0")/.."

need_root() { if [ "$(id -u)" -ne 0 ]; then echo sudo; fi; }
SUDO=$(need_root)

# Debian packages: build (libnghttp2-dev, zlib1g-dev for HearthWire's message compression, pkg-config, protobuf-compiler for
# tools/generate-protos.sh, libprotobuf-c-dev and protobuf-c-compiler for the
# C driver SDK in c/driver and its generated-code check, make) and benchmarks
# (nghttp2-client: h2load and nghttp).
packages=(libnghttp2-dev libnghttp2-14 zlib1g-dev pkg-config protobuf-compiler libprotobuf-c-dev protobuf-c-compiler make libsqlite3-dev nghttp2-client python3)

# Debian's 1.52.0-1+deb12u2 backported nghttp2_option_set_stream_reset_rate_limit
# and nghttp2_option_set_max_continuations without changing the version
# string, so the package revision is what must be checked.
min_nghttp2="1.52.0-1+deb12u2"
have_nghttp2=$(dpkg-query -W -f='${Version}' libnghttp2-dev 2>/dev/null || true)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ -z "$have_nghttp2" ] || ! dpkg --compare-versions "$have_nghttp2" ge "$min_nghttp2"; then
  missing+=(libnghttp2-dev libnghttp2-14)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${packages[@]}" >/dev/null
fi

have_nghttp2=$(dpkg-query -W -f='${Version}' libnghttp2-dev)
if ! dpkg --compare-versions "$have_nghttp2" ge "$min_nghttp2"; then
  echo "setup: libnghttp2-dev $have_nghttp2 lacks the flood-protection backports (need $min_nghttp2 or later)" >&2
  exit 1
fi
if ! grep -q nghttp2_option_set_max_continuations /usr/include/nghttp2/nghttp2.h; then
  echo "setup: /usr/include/nghttp2/nghttp2.h has no nghttp2_option_set_max_continuations" >&2
  exit 1
fi

command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6.3 expected at /opt/swift)" >&2; exit 1; }

# Python grpcio for the interop tests (a virtual environment under tools/interop).
tools/interop/setup.sh >/dev/null
# Chromium and Playwright for the dashboard's browser test.
tools/dashboard/setup.sh >/dev/null

echo "setup: ok (libnghttp2-dev $have_nghttp2, $(swift --version 2>/dev/null | head -1))"

#!/usr/bin/env bash
# What a page fault on fresh memory costs this machine now (Docs/Benchmarks.md, "Fresh memory on this
# machine"): maps and touches MiB of memory, passes times, and prints the time per 4 KiB page of each pass.
#
#   tools/Benchmarks/first-touch.sh [MiB] [passes]     (defaults: 2048 MiB, 2 passes)
#
# A first pass several times slower than the second means the VM had not used that memory before; the
# benchmarks that grow their memory (ten clients joining a 100,000-device home touch about 1.1 GiB) are
# then slower too. Run it before a series to say which state the machine was in.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/.build"
cc -O2 -Wall -o "$here/.build/first_touch" "$here/first_touch.c"
"$here/.build/first_touch" "${1:-2048}" "${2:-2}"

#!/usr/bin/env bash
# The load test: builds hearth-load and hearth-hub in release, then runs a preset.
#
#   tools/load/run.sh                      # small: 100 devices, ~15 s (CI runs it in debug as a test)
#   tools/load/run.sh --preset home        # 1k devices, 4 drivers, 8 clients, rate search
#   tools/load/run.sh --preset building    # 100k devices, 50 drivers, 20 clients
#   tools/load/run.sh --preset home --rates 1000,2000 --no-stall
#
# LOAD_NO_BUILD=1 skips the build. Results go to results/load/<preset>-<time>/ (table.txt, results.json,
# latency.svg); README.md beside this script says what is measured and how.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${LOAD_NO_BUILD:-0}" != 1 ]; then
  swift build -c release --product hearth-hub >&2
  swift build -c release --product hearth-load >&2
fi
exec .build/release/hearth-load run "$@"

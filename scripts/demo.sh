#!/usr/bin/env bash
# Sets up, builds a release jouleprof and measures a built-in default job:
# a CPU-bound loop, 3 repeats after an idle baseline, on whatever sensors this
# node has (on a VM without sensors the figures are estimated, and say so).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
jp=build/release/src/jouleprof
"$jp" sensors
out=$(mktemp -d)/demo.jptrace
"$jp" run --baseline 2s --repeat 3 --cooldown 1s -o "$out" -- \
    sh -c 'i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done'
echo "trace kept at $out (query it with: sqlite3 $out 'select * from summary')"

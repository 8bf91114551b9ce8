#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Sets up, builds a release jouleprof with the study's reference workloads, and
# runs studies/quick.toml: both workloads (energy-lstm, health-vgg), training and
# inference, with 1 and 2 threads, 2 measured runs each after a warm-up; then
# prints the study's table (consumption kJ ± std, average power W ± std,
# runtime, parts, phases) and writes the job profiles as HTML. On a node
# without power sensors (a VM) the figures are estimated, and say so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
jp=build/release/src/jouleprof
"$jp" sensors
out=$(mktemp -d)
"$jp" study studies/quick.toml --dir "$out" --html "$out/quick.html"
echo "results kept in $out ($(du -sh "$out" | cut -f1), the workloads' checkpoints included;" \
     "$jp study report $out/*.jptrace; open $out/quick.html)"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Seeds for fuzz/redfish_json.cpp: every DMTF mockup file under data/redfish,
# once behind each selector byte (the first byte picks the parser, 0..7).
#   tests/redfish/fuzz_seeds.sh OUTDIR      (e.g. fuzz/corpus/redfish_json)
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
here=$(cd "$(dirname "$0")/../.." && pwd)
data=$here/data/redfish
mkdir -p "$out"
n=0
while IFS= read -r -d '' f; do
    for sel in 0 1 2 3 4 5 6 7; do
        { printf "\\x0$sel"; cat "$f"; } >"$out/seed-$n-$sel"
    done
    n=$((n + 1))
done < <(find "$data" -name index.json -print0 | sort -z)
for d in PT0.25S PT1M30S P1DT2H; do printf '\x07%s' "$d" >"$out/seed-duration-$d"; done
echo "$0: $((n * 8 + 3)) seeds in $out"

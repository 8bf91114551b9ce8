#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the libFuzzer targets on their corpora (build them first:
# cmake --preset fuzz && cmake --build --preset fuzz).
#   fuzz/run.sh [LIBFUZZER_FLAG...] [TARGET...]   default: -max_total_time=20, every target
#   fuzz/run.sh -runs=10000000 trace
#   FUZZ_JOBS=1 fuzz/run.sh          one target at a time (default: one per core)
# New inputs go to build/fuzz/corpus/TARGET (fuzz/corpus/TARGET holds the
# checked-in seeds, never written); crashes to build/fuzz/crashes/. Prints one
# line per target: executions, their rate, coverage; exits 1 at a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
flags=()
targets=()
for a in "$@"; do
    if [[ $a == -* ]]; then flags+=("$a"); else targets+=("$a"); fi
done
((${#flags[@]})) || flags=(-max_total_time=20)
if ((${#targets[@]} == 0)); then
    for d in fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi
mkdir -p build/fuzz/crashes build/fuzz/logs
for t in "${targets[@]}"; do
    exe=build/fuzz/fuzz/fuzz_$t
    [[ -x $exe ]] || { echo "fuzz/run.sh: $exe is not built (cmake --build --preset fuzz)" >&2; exit 2; }
done

# One target: its line, and its log's tail at a finding; exits 1 at a finding.
fuzz_one() {
    local t=$1 exe=build/fuzz/fuzz/fuzz_$1 log=build/fuzz/logs/$1.log result secs runs cov
    mkdir -p "build/fuzz/corpus/$t"
    SECONDS=0
    if "$exe" "${flags[@]}" -print_final_stats=1 -artifact_prefix="build/fuzz/crashes/$t-" \
        "build/fuzz/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
        result=clean
    else
        result="FINDING (see $log)"
    fi
    secs=$((SECONDS > 0 ? SECONDS : 1))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
    printf '%-16s %s: %s executions in %s s (%s/s), coverage %s edges\n' "$t" "$result" \
        "${runs:-0}" "$secs" "$((${runs:-0} / secs))" "${cov:-?}"
    if [[ $result != clean ]]; then tail -30 "$log"; return 1; fi
}

# FUZZ_JOBS targets at a time (default: one per core); each target is one process.
max_jobs=${FUZZ_JOBS:-$(nproc)}
status=0
running=0
for t in "${targets[@]}"; do
    if ((running >= max_jobs)); then
        wait -n || status=1
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
while ((running > 0)); do
    wait -n || status=1
    running=$((running - 1))
done
exit $status

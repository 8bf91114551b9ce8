#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The third real-GPU check (docs/gpu-check.md, "Third check"): the GPU read as two sensors,
# the energy counter at anchors and the power fields between them (the GPU-node issue), on
# one short lease of a GPU machine; each step independent of the others' success.
#
#   mkdir -p OUT && bench/gpu/round3.sh KIT OUT 2>&1 | tee OUT/log
#
# KIT: bench/gpu/make_kit.sh's folder. OUT/results.tar.gz: every trace, JSON, capture and log.
#  1. the board and driver, `jouleprof sensors` (gpu0, gpu0.power, gpu0.instant, gpu0.util);
#  2. does a field read wait for an energy read in the driver (bench/gpu/lock_probe.py);
#  3. the monitor's CPU at -i 100ms and -i 10ms, GPU idle and under load, with anchors
#     (the default, every 10 s), with `anchor = "off"` (the counter at the interval) and
#     without the nvml backend (the rest of the monitor);
#     the time `run -- true` takes, both ways;
#  4. phases between anchors (bench/gpu/phase_load.py), with the driver's counter read back
#     to back by another process (bench/gpu/field_capture.py) as the reference that
#     bench/gpu/phase_truth.py compares them with;
#  5. a 15 ms pulse every 101 ms under `run`, the driver's counter read around it: total,
#     peak and the fields' coverage note.
set -uo pipefail
kit=$(realpath "$1")
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
mkdir -p "$out" "$w/bin"
jp=$w/bin/jouleprof
cp "$kit/bin/jouleprof" "$jp"
export PATH=$w/bin:$PATH PYTHONUNBUFFERED=1 JOULEPROF_TRACE_DIR=$w/traces
t0=$(date +%s)
step() { echo "== $(($(date +%s) - t0)) s: $*"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,power.limit,pci.bus_id,temperature.gpu --format=csv
uname -r
python3 -c 'import torch, pynvml; print("torch", torch.__version__, "cuda", torch.version.cuda)'
"$jp" --version
"$jp" sensors

step "does a field read wait for an energy read"
python3 "$here/lock_probe.py" 4

step "what the monitor costs"
printf '[sensors.nvml]\nanchor = "off"\n' >"$w/off.toml"
cost() { # NAME ARGS...: one run, its JSON kept; the monitor's CPU printed
    local name=$1
    shift
    "$jp" -q "$@" >"$w/cost-$name.json" 2>"$w/cost-$name.err"
    python3 - "$w/cost-$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["groups"][0]["runs"][0]
cpu, rt = r["monitor_cpu_s"], r["runtime_s"]
print(f"cost {sys.argv[2]}: monitor CPU {cpu:.3f} s over {rt:.1f} s = {100 * cpu / rt:.2f} % of a core")
PY
}
printf '[sensors.nvml]\nenabled = false\n' >"$w/nogpu.toml"
# 20 s and 5 s of an idle GPU: the difference is the steady state, without the start-up
# (nvmlInit, discovery) that a short run's figure holds; "nogpu": the same node without the
# nvml backend, so the GPU's own share is the difference.
for i in 100ms 10ms; do
    cost "anchored-idle-$i-20s" run --no-live -i "$i" --json -- sleep 20
    cost "anchored-idle-$i-5s" run --no-live -i "$i" --json -- sleep 5
    cost "off-idle-$i-20s" --config "$w/off.toml" run --no-live -i "$i" --json -- sleep 20
    cost "nogpu-idle-$i-20s" --config "$w/nogpu.toml" run --no-live -i "$i" --json -- sleep 20
done
cost anchored-load-100ms run --no-live -i 100ms --json -- python3 "$here/matmul_load.py" 10
cost anchored-load-10ms run --no-live -i 10ms --json -- python3 "$here/matmul_load.py" 10
python3 - "$jp" "$w/off.toml" <<'PY'
import statistics, subprocess, sys, time
for name, pre in (("anchored", []), ("anchor off", ["--config", sys.argv[2]])):
    walls = []
    for _ in range(5):
        t = time.monotonic()
        subprocess.run([sys.argv[1], "-q", *pre, "run", "--no-live", "-i", "100ms", "--", "true"], check=True)
        walls.append(time.monotonic() - t)
    print(f"cost: `jouleprof run -- true` wall, {name}, median of 5: {statistics.median(walls) * 1e3:.1f} ms")
PY

step "phases between anchors"
rm -f "$w/phases.until"
ENERGY_GAP_MS=0 python3 "$here/field_capture.py" 60 "$w/phases-fields.csv" "$w/phases.until" 2>"$w/phases-capture.err" &
cap=$!
sleep 1
"$jp" run --no-live -i 10ms -o "$w/phases.jptrace" --json-file "$w/phases.json" -- python3 "$here/phase_load.py"
touch "$w/phases.until"
wait "$cap"
cat "$w/phases-capture.err"

step "a 15 ms pulse every 101 ms"
e0=$(python3 "$here/nvml_energy.py" || true)
"$jp" run --no-live -i 100ms -o "$w/pulse.jptrace" --json-file "$w/pulse.json" -- \
    python3 "$here/square_load.py" 101 20 "$w/pulse-edges.csv" 15
e1=$(python3 "$here/nvml_energy.py" || true)
if [[ $e0 =~ ^[0-9]+$ && $e1 =~ ^[0-9]+$ ]]; then
    echo "pulse: driver counter across the whole jouleprof run: $((e1 - e0)) mJ"
else
    echo "pulse: the driver's counter could not be read ('$e0', '$e1')"
fi

step "packing"
tar -C "$w" -czf "$out/results.tar.gz" . && ls -la "$out"
step "done"

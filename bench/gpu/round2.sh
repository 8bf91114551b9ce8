#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The second real-GPU check (docs/gpu-check.md): one script for one short lease of a GPU
# machine, each step independent of the others' success.
#
#   mkdir -p OUT && bench/gpu/round2.sh KIT OUT 2>&1 | tee OUT/log
#
# KIT: bench/gpu/make_kit.sh's folder (jouleprof and what the workloads' build needs).
# OUT: where results go (OUT/results.tar.gz: every capture, trace, JSON and log).
#  1. the board and driver, `jouleprof sensors`;
#  2. in the background: the reference workloads built against this machine's PyTorch
#     (bench/gpu/build_workload.sh);
#  3. the part-time power fields: square-wave loads of 37 ms and 130 ms periods, 30 s each
#     (bench/gpu/square_load.py), with the energy counter and the power fields read on
#     their own threads (bench/gpu/field_capture.py);
#  4. two processes sharing the GPU, NVML's per-process utilisation (bench/gpu/proc_util.py);
#  5. the study's GPU setting, reduced (bench/gpu/study-gpu.toml) under `jouleprof study`;
#  6. what each reading costs: the monitor's CPU at -i 100ms and -i 10ms, GPU idle and under
#     load, with the counter read at its default pace and at 10 ms; the time `run` adds to a
#     job (its start and end edges); the driver's counter read around one run.
set -uo pipefail
kit=$(realpath "$1")
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
w=$(mktemp -d)
mkdir -p "$out" "$w/bin"
jp=$w/bin/jouleprof
cp "$kit/bin/jouleprof" "$jp"
export PATH=$w/bin:$PATH PYTHONUNBUFFERED=1 JOULEPROF_TRACE_DIR=$w/traces
t0=$(date +%s)
step() { echo "== $(($(date +%s) - t0)) s: $*"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,power.limit,power.max_limit,pci.bus_id,clocks.sm,temperature.gpu --format=csv
nvidia-smi -q >"$w/nvidia-smi-q.txt"
nvidia-smi -q -d POWER | sed -n 1,40p
uname -r
nproc
python3 -c 'import torch, pynvml; print("torch", torch.__version__, "cuda", torch.version.cuda, "abi", torch._C._GLIBCXX_USE_CXX11_ABI); print("nvml driver", pynvml.nvmlInit() or pynvml.nvmlSystemGetDriverVersion())'
g++ --version | head -1
"$jp" --version
"$jp" sensors

step "building the workloads (background)"
(bash "$here/build_workload.sh" "$kit" "$w/bin" >"$w/build.log" 2>&1; echo "rc=$?" >>"$w/build.log") &
build=$!

for period in 37 130; do
    step "part-time power fields: square wave of $period ms for 30 s"
    rm -f "$w/edges-$period.csv"
    python3 "$here/field_capture.py" 70 "$w/fields-$period.csv" "$w/edges-$period.csv" &
    cap=$!
    sleep 1
    timeout 60 python3 "$here/square_load.py" "$period" 30 "$w/edges-$period.csv"
    wait "$cap"
done

step "two processes sharing the GPU"
python3 "$here/matmul_load.py" 22 &
a=$!
python3 "$here/square_load.py" 200 22 "$w/edges-shared.csv" &
b=$!
sleep 6
python3 "$here/proc_util.py" 12 "$w/proc_util.csv" "$a=steady" "$b=square-200ms"
wait "$a" "$b"

step "waiting for the workloads' build"
wait "$build"
cat "$w/build.log"
if [[ -x $w/bin/jouleprof-workload ]]; then
    step "the study's GPU setting, reduced"
    timeout 300 "$jp" study "$here/study-gpu.toml" --node-type gpu-vm --setting cuda \
        --dir "$w/study" --html "$w/study.html" --json-file "$w/study.json"
    echo "study rc=$?"
    "$jp" study report "$w"/study/*.jptrace >"$w/study-report.txt" 2>&1
    cat "$w/study-report.txt"
fi

step "what each reading costs"
printf '[sensors.nvml]\ninterval = "10ms"\n' >"$w/nvml10.toml"
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
cost idle-100ms run --no-live -i 100ms --json -- sleep 10
cost idle-10ms run --no-live -i 10ms --json -- sleep 10
cost idle-10ms-nvml10 --config "$w/nvml10.toml" run --no-live -i 10ms --json -- sleep 10
cost load-100ms run --no-live -i 100ms --json -- python3 "$here/matmul_load.py" 10
cost load-10ms run --no-live -i 10ms --json -- python3 "$here/matmul_load.py" 10
python3 - "$jp" <<'PY'
import os, statistics, subprocess, sys, time
walls = []
for _ in range(5):
    t = time.monotonic()
    subprocess.run([sys.argv[1], "-q", "run", "--no-live", "-i", "100ms", "--", "true"], check=True)
    walls.append(time.monotonic() - t)
print(f"cost: `jouleprof run -- true` wall (start, both edges, trace), median of 5: {statistics.median(walls) * 1e3:.1f} ms")
PY
# The driver's counter read by another process around the whole run; said only when both
# readings are numbers (a failed read must not look like a figure, nor stop the packing).
e0=$(python3 "$here/nvml_energy.py" || true)
"$jp" run --no-live -i 10ms -o "$w/crosscheck.jptrace" --json-file "$w/crosscheck.json" -- python3 "$here/matmul_load.py" 20
e1=$(python3 "$here/nvml_energy.py" || true)
if [[ $e0 =~ ^[0-9]+$ && $e1 =~ ^[0-9]+$ ]]; then
    echo "crosscheck: driver counter across the whole jouleprof run: $((e1 - e0)) mJ"
else
    echo "crosscheck: the driver's counter could not be read ('$e0', '$e1')"
fi

step "packing"
tar -C "$w" -czf "$out/results.tar.gz" --exclude='*.pt' . && ls -la "$out"
step "done"

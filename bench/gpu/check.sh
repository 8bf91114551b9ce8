#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# jouleprof on a real NVIDIA GPU (docs/gpu-check.md has what one H100 gave):
#   bench/gpu/check.sh JOULEPROF OUTDIR
# 1. the driver and board (nvidia-smi), `jouleprof sensors`;
# 2. how often the energy counter and the power fields change, idle and under load
#    (bench/gpu/nvml_capture.py, 10 s each: OUTDIR/idle.csv, OUTDIR/load.csv);
# 3. `jouleprof run --interval 100ms` around 60 s of matrix products and around an idle
#    `sleep 30`, each bracketed by the driver's energy counter read independently
#    (bench/gpu/nvml_energy.py) in the same command: OUTDIR/{load,idle}.{jptrace,json}.
# Needs python3 with PyTorch (CUDA) and nvidia-ml-py.
set -euo pipefail
jp=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,power.limit,power.max_limit,pci.bus_id --format=csv
"$jp" sensors
echo "== update periods, idle"
python3 "$here/nvml_capture.py" 10 "$out/idle.csv"
echo "== update periods, under load"
python3 "$here/matmul_load.py" 14 &
load=$!
sleep 3
python3 "$here/nvml_capture.py" 10 "$out/load.csv"
wait "$load"
measure() { # NAME COMMAND...: jouleprof run between two readings of the counter
    local name=$1
    shift
    local e0 e1
    e0=$(python3 "$here/nvml_energy.py")
    "$jp" run --no-live --interval 100ms -o "$out/$name.jptrace" --json -- "$@" >"$out/$name.json"
    e1=$(python3 "$here/nvml_energy.py")
    echo "$name: driver counter across the whole jouleprof run: $(((e1 - e0))) mJ"
    "$jp" report "$out/$name.jptrace"
}
echo "== 60 s of matrix products"
measure load python3 "$here/matmul_load.py" 60
echo "== idle: sleep 30"
measure idle sleep 30

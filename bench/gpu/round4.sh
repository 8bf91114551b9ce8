#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The fourth real-GPU check, through jouleprof (docs/gpu-check.md, "Fourth check"): the
# shared-GPU rule of docs/attribution.md on a real GPU and driver, each step independent of
# the others' success:
#
#   mkdir -p OUT && bench/gpu/round4.sh KIT OUT 2>&1 | tee OUT/log      # ~2 min, as root
#
# KIT: bench/gpu/make_kit.sh's folder (only KIT/bin/jouleprof is used). The GPU's idle power
# is read first (nvidia-smi, GPU idle) and given as [attribution] idle_watts for gpu0. Then,
# each a `jouleprof run` whose job holds GPU 0 (CUDA_VISIBLE_DEVICES=0):
#  1. alone: the job's matrix products, nobody else on the GPU;
#  2. a sleeping job beside a neighbour's matrix products (outside the job);
#  3. the same as an unprivileged user (what NVML lists to a user for root's processes);
#  4. the job's matrix products beside a neighbour that holds a context and runs nothing;
#  5. the job's and a neighbour's matrix products together.
# For each: gpu0's share (idle, dynamic, other, the job's bound and its terms) and the
# attribution's notes, in OUT/summary.txt; OUT/results.tar.gz holds every trace and JSON.
set -uo pipefail
kit=$(realpath "$1")
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
chmod 755 "$w"
mkdir -p "$out"
jp=$w/jouleprof
cp "$kit/bin/jouleprof" "$jp"
chmod 755 "$jp"
cp "$here/matmul_load.py" "$w/"
export PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID
t0=$(date +%s)
step() { echo "== $(($(date +%s) - t0)) s: $*"; }
holder='import torch,time,sys; x=torch.empty(1<<30,dtype=torch.uint8,device="cuda"); torch.cuda.synchronize(); time.sleep(float(sys.argv[1]))'

step "machine and idle power"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv
"$jp" --version
idle=$(python3 - <<'PY'
import time, pynvml as nv
nv.nvmlInit(); h = nv.nvmlDeviceGetHandleByIndex(0)
e0, t0 = nv.nvmlDeviceGetTotalEnergyConsumption(h), time.monotonic()
time.sleep(3)
e1, t1 = nv.nvmlDeviceGetTotalEnergyConsumption(h), time.monotonic()
print(f"{(e1 - e0) / 1e3 / (t1 - t0):.1f}")
PY
)
echo "idle power of gpu0 over 3 s: $idle W"
printf '[attribution]\nidle_watts = { "gpu0" = %s }\n' "$idle" >"$w/config.toml"
chmod 644 "$w/config.toml"

summary() { # NAME: gpu0's share and the notes from NAME.json
    python3 - "$w/$1.json" "$1" <<'PY' | tee -a "$out/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))["groups"][0]["runs"][0]
a = r.get("attribution")
if not a:
    print(f"{sys.argv[2]}: no attribution"); sys.exit()
g = next(p for p in a["parts"] if p["name"] == "gpu0")
t = g.get("job_bound_terms", {})
print(f"{sys.argv[2]}: {r['runtime_s']:.1f} s, gpu0 {g['node_j']:.0f} J: job idle {g['idle_j']:.0f} J, "
      f"job dynamic {g['dynamic_j']:.0f} J, other {g['other_j']:.0f} J, unallocated {g['unallocated_j']:.0f} J; "
      f"job bound {g.get('job_low_j', float('nan')):.0f}-{g.get('job_high_j', float('nan')):.0f} J "
      f"({g.get('job_bound_dominant')}; shared_gpu {t.get('shared_gpu', 0):.0f} J)")
for n in a["notes"]:
    print(f"  note: {n}")
PY
}
run() { # NAME ARGS...: jouleprof run of ARGS, its JSON kept
    local name=$1
    shift
    "$jp" -q -c "$w/config.toml" run --no-live -o "$w/$name.jptrace" --json-file "$w/$name.json" \
        -- "$@" >"$w/$name.out" 2>&1 || echo "$name: jouleprof exited $?"
    summary "$name"
}

step "1. the job alone"
run alone python3 "$w/matmul_load.py" 6

step "2. a sleeping job beside a neighbour's work"
python3 "$here/matmul_load.py" 16 >"$w/n2.log" 2>&1 &
n=$!
sleep 5 # the neighbour's start-up
run sleeper sleep 8
step "3. the same as an unprivileged user"
id jpgpu >/dev/null 2>&1 || useradd -M jpgpu
mkdir -p "$w/u" && chmod 777 "$w/u"
runuser -u jpgpu -- env HOME="$w/u" "$jp" -q -c "$w/config.toml" run --no-live \
    -o "$w/u/user.jptrace" --json-file "$w/u/user.json" -- sleep 3 >"$w/user.out" 2>&1 ||
    echo "user: jouleprof exited $?"
cp "$w/u/user.json" "$w/user.json" 2>/dev/null
summary user
wait "$n"

step "4. the job's work beside a neighbour that holds a context"
python3 -c "$holder" 20 >"$w/n4.log" 2>&1 &
n=$!
sleep 4
run beside-holder python3 "$w/matmul_load.py" 6
kill "$n" 2>/dev/null
wait "$n" 2>/dev/null

step "5. the job's and a neighbour's work together"
python3 "$here/matmul_load.py" 16 >"$w/n5.log" 2>&1 &
n=$!
sleep 4
run both python3 "$w/matmul_load.py" 6
wait "$n"

step "packing"
tar -C "$w" -czf "$out/results.tar.gz" --exclude=jouleprof . && ls -la "$out"
step "done"

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What NVML can tell about who uses a GPU several processes share, and what asking costs.

    python3 bench/gpu/share_probe.py OUT_DIR     # as root, on GPU 0; ~60 s

The input the shared-GPU rule of the attribution issue (docs/attribution.md) is built on.
Three questions, each answered in OUT_DIR and on stdout:

1. costs.csv: wall and thread-CPU time per call (median, p99 of 300) of
   nvmlDeviceGetComputeRunningProcesses, nvmlDeviceGetProcessUtilization and
   nvmlDeviceGetAccountingStats, with no process on the GPU and with three.
2. shared.csv: three processes on GPU 0 at once for SECONDS_SHARED: A steady matrix products
   (bench/gpu/matmul_load.py), B a 200 ms square wave of them (bench/gpu/square_load.py,
   its on/off times in b-edges.csv), C a process that holds 1 GiB and a context and runs
   nothing. Every 250 ms: the running compute processes, each one's accounting stats
   (accounting mode switched on for the probe and restored after: gpuUtilization over the
   process's life so far, its time), the driver's per-process samples, the device's
   utilisation, and the energy counter. One row per reading:
       t_ns,api,pid,label,a,b,c
   running: a = used MiB; accounting: a = gpu %, b = memory %, c = time ms;
   process_util: a = sm %, b = mem %, c = sample µs; device: a = gpu %, b = memory %;
   energy: a = mJ.
3. alone.csv: A alone, then B alone, 6 s each, the energy counter before and after and each
   one's accounting stats: what a split by busy time would charge each when they share.
"""
import os
import statistics
import subprocess
import sys
import time

import pynvml as nv

HERE = os.path.dirname(os.path.abspath(__file__))
HOLDER = "import torch,time,sys; x=torch.empty(1<<30,dtype=torch.uint8,device='cuda'); torch.cuda.synchronize(); time.sleep(float(sys.argv[1]))"


def cost(fn, n=300):
    wall, cpu = [], []
    for _ in range(n):
        w0, c0 = time.perf_counter_ns(), time.thread_time_ns()
        try:
            fn()
        except nv.NVMLError:
            pass
        cpu.append(time.thread_time_ns() - c0)
        wall.append(time.perf_counter_ns() - w0)
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))] / 1e3
    return statistics.median(wall) / 1e3, q(wall, 0.99), statistics.median(cpu) / 1e3


def costs(h, label, pids, rows):
    calls = {
        "running_processes": lambda: nv.nvmlDeviceGetComputeRunningProcesses(h),
        "process_utilization": lambda: nv.nvmlDeviceGetProcessUtilization(h, 0),
        "accounting_stats": lambda: [nv.nvmlDeviceGetAccountingStats(h, p) for p in pids[:1]],
    }
    for name, fn in calls.items():
        med, p99, cpu = cost(fn)
        rows.append(f"{label},{name},{len(pids)},{med:.1f},{p99:.1f},{cpu:.1f}")
        print(f"cost {label}: {name} ({len(pids)} pids): {med:.1f} us median, p99 {p99:.1f}, CPU {cpu:.1f} us")


def start(args, out):
    return subprocess.Popen([sys.executable, *args], stdout=open(out, "w"), stderr=subprocess.STDOUT)


def acct(h, pid):
    s = nv.nvmlDeviceGetAccountingStats(h, pid)
    return s.gpuUtilization, s.memoryUtilization, s.time


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: share_probe.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    nv.nvmlInit()
    h = nv.nvmlDeviceGetHandleByIndex(0)
    print("driver", nv.nvmlSystemGetDriverVersion(), nv.nvmlDeviceGetName(h))
    try:
        mode = nv.nvmlDeviceGetAccountingMode(h)
        nv.nvmlDeviceSetAccountingMode(h, nv.NVML_FEATURE_ENABLED)
        nv.nvmlDeviceClearAccountingPids(h)
        print("accounting mode was", mode, "now", nv.nvmlDeviceGetAccountingMode(h),
              "buffer", nv.nvmlDeviceGetAccountingBufferSize(h))
    except nv.NVMLError as e:
        mode = None
        print("accounting mode refused:", e)

    cost_rows = ["state,call,pids,wall_us_median,wall_us_p99,cpu_us_median"]
    costs(h, "idle", [], cost_rows)

    # 2. three processes sharing GPU 0
    shared_s = 16
    a = start([f"{HERE}/matmul_load.py", str(shared_s)], f"{out}/a.log")
    b = start([f"{HERE}/square_load.py", "200", str(shared_s), f"{out}/b-edges.csv"], f"{out}/b.log")
    c = start(["-c", HOLDER, str(shared_s + 4)], f"{out}/c.log")
    labels = {a.pid: "A-steady", b.pid: "B-square200", c.pid: "C-holder"}
    rows, seen, costs_done = [], 0, False
    t_end = time.monotonic() + shared_s + 12
    while time.monotonic() < t_end and (a.poll() is None or b.poll() is None):
        t = time.monotonic_ns()
        try:
            procs = nv.nvmlDeviceGetComputeRunningProcesses(h)
        except nv.NVMLError as e:
            procs = []
            rows.append(f"{t},running-error,0,{e},,,")
        for p in procs:
            rows.append(f"{t},running,{p.pid},{labels.get(p.pid, '')},{(p.usedGpuMemory or 0) >> 20},,")
            try:
                g, m, ms = acct(h, p.pid)
                rows.append(f"{t},accounting,{p.pid},{labels.get(p.pid, '')},{g},{m},{ms}")
            except nv.NVMLError as e:
                rows.append(f"{t},accounting-error,{p.pid},{e},,,")
        try:
            for s in nv.nvmlDeviceGetProcessUtilization(h, seen):
                rows.append(f"{t},process_util,{s.pid},{labels.get(s.pid, '')},{s.smUtil},{s.memUtil},{s.timeStamp}")
                seen = max(seen, s.timeStamp)
        except nv.NVMLError:
            pass
        u = nv.nvmlDeviceGetUtilizationRates(h)
        rows.append(f"{t},device,0,,{u.gpu},{u.memory},")
        rows.append(f"{t},energy,0,,{nv.nvmlDeviceGetTotalEnergyConsumption(h)},,")
        if len(procs) >= 3 and not costs_done:
            costs(h, "three", [p.pid for p in procs], cost_rows)
            costs_done = True
        time.sleep(0.25)
    for p in (a, b, c):
        p.wait()
    for pid, label in labels.items():  # the stats of a process that ended
        try:
            g, m, ms = acct(h, pid)
            rows.append(f"{time.monotonic_ns()},accounting-final,{pid},{label},{g},{m},{ms}")
            print(f"shared: {label} accounting after exit: gpu {g} %, memory {m} %, time {ms} ms")
        except nv.NVMLError as e:
            print(f"shared: {label} accounting after exit: {e}")
    with open(f"{out}/shared.csv", "w") as f:
        f.write("t_ns,api,pid,label,a,b,c\n" + "\n".join(rows) + "\n")

    # 3. each alone
    alone = ["load,energy_mj,seconds,gpu_pct,acct_ms"]
    for label, args in (("A-steady", [f"{HERE}/matmul_load.py", "6"]),
                        ("B-square200", [f"{HERE}/square_load.py", "200", "6", f"{out}/b-alone-edges.csv"])):
        e0, t0 = nv.nvmlDeviceGetTotalEnergyConsumption(h), time.monotonic()
        p = start(args, f"{out}/{label}-alone.log")
        p.wait()
        e1, t1 = nv.nvmlDeviceGetTotalEnergyConsumption(h), time.monotonic()
        try:
            g, _, ms = acct(h, p.pid)
        except nv.NVMLError:
            g, ms = "", ""
        alone.append(f"{label},{e1 - e0},{t1 - t0:.3f},{g},{ms}")
        print(f"alone: {label}: {(e1 - e0) / 1e3:.1f} J in {t1 - t0:.2f} s, accounting gpu {g} % of {ms} ms")
    with open(f"{out}/alone.csv", "w") as f:
        f.write("\n".join(alone) + "\n")
    with open(f"{out}/costs.csv", "w") as f:
        f.write("\n".join(cost_rows) + "\n")
    if mode is not None:
        nv.nvmlDeviceSetAccountingMode(h, mode)
    nv.nvmlShutdown()


if __name__ == "__main__":
    main()

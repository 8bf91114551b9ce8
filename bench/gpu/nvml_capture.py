#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How often a real NVIDIA GPU's power readings change.

Reads, in a tight loop for SECONDS, GPU 0's total-energy counter
(nvmlDeviceGetTotalEnergyConsumption, mJ), its power usage (nvmlDeviceGetPowerUsage, mW)
and the instantaneous and averaged power fields (NVML_FI_DEV_POWER_INSTANT /
NVML_FI_DEV_POWER_AVERAGE, mW), and writes one CSV row each time any of them changes:

    t_ns,energy_mj,usage_mw,instant_mw,average_mw

t_ns is CLOCK_MONOTONIC in ns since the first reading; a field the GPU does not report
is empty. The first row is the first reading. On stderr: how long one round of reads
takes and, per quantity, the median and p10/p90 time between changes.

    python3 bench/gpu/nvml_capture.py SECONDS OUT.csv

Needs nvidia-ml-py (import pynvml). These rows are what tests/data/h100/ holds: the
report's update-period learning is tested on them (tests/unit/report/real_gpu_test.cpp).
"""
import statistics
import sys
import time

import pynvml as nv

FIELDS = ("energy_mj", "usage_mw", "instant_mw", "average_mw")


def field(handle, fid):
    try:
        v = nv.nvmlDeviceGetFieldValues(handle, [fid])[0]
    except nv.NVMLError:
        return None
    if v.nvmlReturn != nv.NVML_SUCCESS:
        return None
    t = v.valueType
    u = v.value
    return {0: u.dVal, 1: u.uiVal, 2: u.ulVal, 3: u.ullVal, 4: u.sllVal, 5: u.siVal}.get(t)


def read(handle):
    try:
        energy = nv.nvmlDeviceGetTotalEnergyConsumption(handle)
    except nv.NVMLError:
        energy = None
    try:
        usage = nv.nvmlDeviceGetPowerUsage(handle)
    except nv.NVMLError:
        usage = None
    return (
        energy,
        usage,
        field(handle, nv.NVML_FI_DEV_POWER_INSTANT),
        field(handle, nv.NVML_FI_DEV_POWER_AVERAGE),
    )


def spread(deltas_ns):
    if len(deltas_ns) < 3:
        return "fewer than 3 changes"
    q = statistics.quantiles(deltas_ns, n=10)
    return "median {:.2f} ms (p10 {:.2f}, p90 {:.2f}), {} changes".format(
        statistics.median(deltas_ns) / 1e6, q[0] / 1e6, q[-1] / 1e6, len(deltas_ns)
    )


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: nvml_capture.py SECONDS OUT.csv")
    seconds = float(sys.argv[1])
    nv.nvmlInit()
    handle = nv.nvmlDeviceGetHandleByIndex(0)
    rows = []
    last = None
    changed_at = [[] for _ in FIELDS]
    rounds = 0
    start = time.monotonic_ns()
    end = start + int(seconds * 1e9)
    while True:
        t = time.monotonic_ns()
        if t >= end:
            break
        now = read(handle)
        rounds += 1
        if now != last:
            rows.append((t - start,) + now)
            for i, v in enumerate(now):
                if last is not None and v is not None and v != last[i]:
                    changed_at[i].append(t)
            last = now
    nv.nvmlShutdown()
    with open(sys.argv[2], "w") as out:
        out.write("t_ns," + ",".join(FIELDS) + "\n")
        for r in rows:
            out.write(",".join("" if v is None else str(v) for v in r) + "\n")
    print(f"{rounds} rounds of reads in {seconds:g} s: {seconds / rounds * 1e6:.0f} us each",
          file=sys.stderr)
    for name, times in zip(FIELDS, changed_at):
        deltas = [b - a for a, b in zip(times, times[1:])]
        print(f"{name}: changes every {spread(deltas)}", file=sys.stderr)


if __name__ == "__main__":
    main()

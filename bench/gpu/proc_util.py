#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What NVML says about each process sharing a GPU.

    python3 bench/gpu/proc_util.py SECONDS OUT.csv [PID=LABEL ...]

Every 500 ms for SECONDS, on GPU 0: the per-process samples the driver kept since the last
call (nvmlDeviceGetProcessUtilization, and nvmlDeviceGetProcessesUtilizationInfo where the
driver has it), the compute processes and their memory
(nvmlDeviceGetComputeRunningProcesses) and the whole device's utilisation
(nvmlDeviceGetUtilizationRates). One CSV row per sample:

    t_ns,api,pid,label,sample_us,sm,mem

t_ns: CLOCK_MONOTONIC when read; api: process_util, processes_util_info, running (sm =
used GPU memory in MiB there, mem empty) or device (pid 0); sample_us: the driver's
timestamp of the sample; label: the name given to a PID on the command line. An API the
driver refuses gets one row with api=<name>-error and the error in label.
This is the input the attribution of a shared GPU (docs/attribution.md) needs.
"""
import sys
import time

import pynvml as nv


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: proc_util.py SECONDS OUT.csv [PID=LABEL ...]")
    seconds = float(sys.argv[1])
    labels = dict(a.split("=", 1) for a in sys.argv[3:])
    nv.nvmlInit()
    h = nv.nvmlDeviceGetHandleByIndex(0)
    rows = []
    errors = set()
    seen_a = seen_b = 0
    end = time.monotonic() + seconds

    def err(api, e):
        if api not in errors:
            errors.add(api)
            rows.append((time.monotonic_ns(), f"{api}-error", 0, str(e).replace(",", ";"), "", "", ""))

    while time.monotonic() < end:
        t = time.monotonic_ns()
        try:
            for s in nv.nvmlDeviceGetProcessUtilization(h, seen_a):
                rows.append((t, "process_util", s.pid, labels.get(str(s.pid), ""), s.timeStamp, s.smUtil, s.memUtil))
                seen_a = max(seen_a, s.timeStamp)
        except nv.NVMLError as e:
            if "Not Found" not in str(e):  # no sample since seen_a
                err("process_util", e)
        try:
            info = nv.nvmlDeviceGetProcessesUtilizationInfo(h, seen_b)
            for s in info:
                rows.append((t, "processes_util_info", s.pid, labels.get(str(s.pid), ""), s.timeStamp, s.smUtil, s.memUtil))
                seen_b = max(seen_b, s.timeStamp)
        except (nv.NVMLError, AttributeError, TypeError) as e:
            if "Not Found" not in str(e):
                err("processes_util_info", e)
        try:
            for p in nv.nvmlDeviceGetComputeRunningProcesses(h):
                mib = (p.usedGpuMemory or 0) // (1024 * 1024)
                rows.append((t, "running", p.pid, labels.get(str(p.pid), ""), "", mib, ""))
        except nv.NVMLError as e:
            err("running", e)
        try:
            u = nv.nvmlDeviceGetUtilizationRates(h)
            rows.append((t, "device", 0, "", "", u.gpu, u.memory))
        except nv.NVMLError as e:
            err("device", e)
        time.sleep(0.5)
    nv.nvmlShutdown()
    with open(sys.argv[2], "w") as f:
        f.write("t_ns,api,pid,label,sample_us,sm,mem\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")
    by = {}
    for r in rows:
        if r[1] in ("process_util", "processes_util_info"):
            by.setdefault((r[1], r[2], r[3]), []).append(r[5])
    for (api, pid, label), sm in sorted(by.items()):
        print(f"proc_util: {api} pid {pid} {label}: {len(sm)} samples, mean sm {sum(sm) / len(sm):.1f} %")
    for e in sorted(errors):
        print(f"proc_util: {e} refused", file=sys.stderr)


if __name__ == "__main__":
    main()

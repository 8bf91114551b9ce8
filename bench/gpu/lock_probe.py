#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Does a cheap NVML power read wait for an energy read another thread has in the driver?

    python3 bench/gpu/lock_probe.py SECONDS

jouleprof reads a GPU's power fields on its fast thread and the energy counter (~4 ms of
CPU in the driver on an H100) on another thread at the job's edges and every anchor. If
the driver serialises the two, a field read (and the RAPL tick behind it) is late by up to
one energy read. First each cheap call alone (500 times: GetPowerUsage, the INSTANT field,
the INSTANT and AVERAGE fields in one call, GetUtilizationRates), then three phases of
SECONDS each on GPU 0, each round timed in wall and thread CPU time:

  fields alone       nvmlDeviceGetPowerUsage, nvmlDeviceGetFieldValues(POWER_INSTANT) and
                     nvmlDeviceGetUtilizationRates, a round every 1 ms;
  fields + energy    the same while a second thread reads
                     nvmlDeviceGetTotalEnergyConsumption back to back;
  energy x1 / x2     energy reads on one thread alone, then on two threads at once (do
                     two reads of one GPU's counter run side by side or one after another).

One line per phase: median, p90, p99 and max of the round's wall time, the median CPU time,
and the share of rounds over 1 ms. ctypes releases the GIL during each NVML call, so the
threads do not wait on Python. Needs nvidia-ml-py (import pynvml).
"""
import statistics
import sys
import threading
import time

import pynvml as nv


def quantiles(xs):
    xs = sorted(xs)
    at = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]  # noqa: E731
    return statistics.median(xs), at(0.9), at(0.99), xs[-1]


def report(name, walls, cpus):
    med, p90, p99, top = quantiles(walls)
    over = sum(1 for w in walls if w > 1e6) / len(walls)
    print(f"{name:16s} n={len(walls):5d}  wall median {med / 1e3:8.1f} us  p90 {p90 / 1e3:8.1f}  "
          f"p99 {p99 / 1e3:8.1f}  max {top / 1e3:8.1f}  cpu median {statistics.median(cpus) / 1e3:7.1f} us  "
          f">1 ms {100 * over:5.1f} %", flush=True)


def fields_round(h):
    nv.nvmlDeviceGetPowerUsage(h)
    nv.nvmlDeviceGetFieldValues(h, [nv.NVML_FI_DEV_POWER_INSTANT])
    nv.nvmlDeviceGetUtilizationRates(h)


def timed_loop(fn, seconds, pause_s, walls, cpus, stop=None):
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (stop and stop.is_set()):
        w0, c0 = time.perf_counter_ns(), time.thread_time_ns()
        fn()
        walls.append(time.perf_counter_ns() - w0)
        cpus.append(time.thread_time_ns() - c0)
        if pause_s:
            time.sleep(pause_s)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: lock_probe.py SECONDS")
    seconds = float(sys.argv[1])
    nv.nvmlInit()
    h = nv.nvmlDeviceGetHandleByIndex(0)
    energy = lambda: nv.nvmlDeviceGetTotalEnergyConsumption(h)  # noqa: E731

    calls = {
        "GetPowerUsage": lambda: nv.nvmlDeviceGetPowerUsage(h),
        "field INSTANT": lambda: nv.nvmlDeviceGetFieldValues(h, [nv.NVML_FI_DEV_POWER_INSTANT]),
        "fields INST+AVG": lambda: nv.nvmlDeviceGetFieldValues(
            h, [nv.NVML_FI_DEV_POWER_INSTANT, nv.NVML_FI_DEV_POWER_AVERAGE]),
        "GetUtilization": lambda: nv.nvmlDeviceGetUtilizationRates(h),
    }
    for name, fn in calls.items():
        walls, cpus = [], []
        for _ in range(500):
            w0, c0 = time.perf_counter_ns(), time.thread_time_ns()
            fn()
            walls.append(time.perf_counter_ns() - w0)
            cpus.append(time.thread_time_ns() - c0)
        report(name, walls, cpus)

    walls, cpus = [], []
    timed_loop(lambda: fields_round(h), seconds, 1e-3, walls, cpus)
    report("fields alone", walls, cpus)

    walls, cpus, ew, ec = [], [], [], []
    stop = threading.Event()
    t = threading.Thread(target=timed_loop, args=(energy, seconds + 1, 0, ew, ec, stop))
    t.start()
    time.sleep(0.2)
    timed_loop(lambda: fields_round(h), seconds, 1e-3, walls, cpus)
    stop.set()
    t.join()
    report("fields + energy", walls, cpus)
    report("energy (beside)", ew, ec)

    walls, cpus = [], []
    timed_loop(energy, seconds, 0, walls, cpus)
    report("energy x1", walls, cpus)
    w2, c2 = [[], []], [[], []]
    threads = [threading.Thread(target=timed_loop, args=(energy, seconds, 0, w2[i], c2[i])) for i in (0, 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    report("energy x2", w2[0] + w2[1], c2[0] + c2[1])
    nv.nvmlShutdown()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A real NVIDIA GPU's energy counter and power fields, each on its own reader.

    python3 bench/gpu/field_capture.py SECONDS OUT.csv [UNTIL_FILE]

Two threads read GPU 0 for SECONDS, or until UNTIL_FILE exists (then 0.5 s more):
  - the energy counter (nvmlDeviceGetTotalEnergyConsumption, mJ), every ~10 ms after the
    last read ended (a read spins ~4 ms in the driver on an H100; $ENERGY_GAP_MS sets
    the pause: 0 reads it back to back, so its changes are seen sooner);
  - the power fields POWER_INSTANT and POWER_AVERAGE (one nvmlDeviceGetFieldValues call)
    and nvmlDeviceGetPowerUsage, every ~1 ms.
One CSV row per reading that differs from the previous reading of the same quantity (and
the first and last of each):

    t_ns,t_end_ns,what,value,driver_us

t_ns/t_end_ns: CLOCK_MONOTONIC (time.monotonic_ns) before and after the call; what:
energy_mj, instant_mw, average_mw or usage_mw; driver_us: the field's own timestamp
(nvmlFieldValue_t.timestamp, µs) where the driver gives one, else empty. On stderr: each
reader's call time (median, p99), so a reader held up by the other shows.
ctypes releases the GIL during each NVML call, so the two readers do not wait on Python.

Needs nvidia-ml-py (import pynvml). bench/gpu/parttime.py compares the fields' integral
with the counter's delta over the same span.
"""
import os
import statistics
import sys
import threading
import time

import pynvml as nv

GAP_S = float(os.environ.get("ENERGY_GAP_MS", "10")) / 1e3


def field_value(v):
    if v.nvmlReturn != nv.NVML_SUCCESS:
        return None
    u = v.value
    return {0: u.dVal, 1: u.uiVal, 2: u.ulVal, 3: u.ullVal, 4: u.sllVal, 5: u.siVal}.get(v.valueType)


class Recorder:
    """The readings that differ from the previous one of the same quantity, and the last."""

    def __init__(self):
        self.rows = []
        self.last = {}  # what: the latest reading, recorded or not
        self.lock = threading.Lock()

    def add(self, t0, t1, what, value, driver_us=""):
        if value is None:
            return
        with self.lock:
            row = (t0, t1, what, value, driver_us)
            changed = what not in self.last or self.last[what][0][3] != value
            if changed:
                self.rows.append(row)
            self.last[what] = (row, changed)

    def finish(self):
        """Each quantity's last reading too, where it repeated the one recorded before it."""
        with self.lock:
            self.rows.extend(row for row, recorded in self.last.values() if not recorded)


def energy_reader(handle, rec, stop, times):
    while not stop.is_set():
        t0 = time.monotonic_ns()
        try:
            e = nv.nvmlDeviceGetTotalEnergyConsumption(handle)
        except nv.NVMLError:
            e = None
        t1 = time.monotonic_ns()
        times.append(t1 - t0)
        rec.add(t0, t1, "energy_mj", e)
        stop.wait(GAP_S)


def field_reader(handle, rec, stop, times):
    ids = [nv.NVML_FI_DEV_POWER_INSTANT, nv.NVML_FI_DEV_POWER_AVERAGE]
    names = ["instant_mw", "average_mw"]
    while not stop.is_set():
        t0 = time.monotonic_ns()
        try:
            values = nv.nvmlDeviceGetFieldValues(handle, ids)
        except nv.NVMLError:
            values = []
        t1 = time.monotonic_ns()
        try:
            usage = nv.nvmlDeviceGetPowerUsage(handle)
        except nv.NVMLError:
            usage = None
        t2 = time.monotonic_ns()
        times.append(t1 - t0)
        for name, v in zip(names, values):
            rec.add(t0, t1, name, field_value(v), v.timestamp)
        rec.add(t1, t2, "usage_mw", usage)
        stop.wait(0.001)


def spread(ns):
    if not ns:
        return "no reads"
    ns = sorted(ns)
    return "{} reads, median {:.3f} ms, p99 {:.3f} ms".format(
        len(ns), statistics.median(ns) / 1e6, ns[int(0.99 * (len(ns) - 1))] / 1e6
    )


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: field_capture.py SECONDS OUT.csv [UNTIL_FILE]")
    seconds = float(sys.argv[1])
    until = sys.argv[3] if len(sys.argv) == 4 else None
    nv.nvmlInit()
    handle = nv.nvmlDeviceGetHandleByIndex(0)
    rec = Recorder()
    stop = threading.Event()
    etimes, ftimes = [], []
    threads = [
        threading.Thread(target=energy_reader, args=(handle, rec, stop, etimes)),
        threading.Thread(target=field_reader, args=(handle, rec, stop, ftimes)),
    ]
    for t in threads:
        t.start()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if until and os.path.exists(until):
            time.sleep(0.5)
            break
        time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join()
    nv.nvmlShutdown()
    rec.finish()
    rec.rows.sort()
    with open(sys.argv[2], "w") as f:
        f.write("t_ns,t_end_ns,what,value,driver_us\n")
        for row in rec.rows:
            f.write(",".join(str(x) for x in row) + "\n")
    print(f"field_capture: energy reader {spread(etimes)}; field reader {spread(ftimes)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()

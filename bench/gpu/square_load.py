#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A GPU load switched on and off: a square wave of PERIOD_MS for SECONDS.

    python3 bench/gpu/square_load.py PERIOD_MS SECONDS EDGES.csv [ON_MS]

ON_MS (default half the period) is how long each period's load lasts: a short pulse in a
period just off the sensor's 100 ms (101 ms, 15 ms on) sweeps the pulse across the
sensor's cycle, which shows which part of each cycle a power reading sees.

"On" is bf16 6144x6144 matrix products on cuda:0 issued one at a time until the half-period
is over (each ~0.3 ms on an H100, so the on-phase ends within a product of its time);
"off" is the GPU idle until the next period starts. The schedule is absolute
(period k starts at t0 + k x PERIOD), so the wave does not drift.

EDGES.csv has one row per on-phase, CLOCK_MONOTONIC ns (time.monotonic_ns, the same clock
as bench/gpu/field_capture.py):

    on_ns,off_ns

on_ns is taken before the first product is issued, off_ns after the GPU finished the last
(torch.cuda.synchronize). Needs PyTorch with CUDA. bench/gpu/parttime.py reads these edges
with the power readings to find how much of each period the power fields cover.
"""
import sys
import time

import torch


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: square_load.py PERIOD_MS SECONDS EDGES.csv [ON_MS]")
    period_ns = int(float(sys.argv[1]) * 1e6)
    seconds = float(sys.argv[2])
    on_ns = int(float(sys.argv[4]) * 1e6) if len(sys.argv) == 5 else period_ns // 2
    if period_ns <= 0 or seconds <= 0 or not 0 < on_ns < period_ns:
        sys.exit("square_load.py: PERIOD_MS and SECONDS must be positive, ON_MS within the period")
    n = 6144
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(20):  # warm-up: cuBLAS handles, kernel selection
        a @ b
    torch.cuda.synchronize()
    edges = []
    t0 = time.monotonic_ns() + 200_000_000
    k = 0
    end = t0 + int(seconds * 1e9)
    while True:
        start = t0 + k * period_ns
        if start >= end:
            break
        now = time.monotonic_ns()
        if now < start:
            time.sleep((start - now) / 1e9)
        on = time.monotonic_ns()
        while time.monotonic_ns() < start + on_ns:
            a @ b
            torch.cuda.synchronize()
        off = time.monotonic_ns()
        edges.append((on, off))
        k += 1
    with open(sys.argv[3], "w") as f:
        f.write("on_ns,off_ns\n")
        for on, off in edges:
            f.write(f"{on},{off}\n")
    busy = sum(off - on for on, off in edges) / 1e9
    print(f"square_load: {len(edges)} periods of {period_ns / 1e6:g} ms, on {busy:.2f} s of {seconds:g} s")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Phases of GPU load between jouleprof's counter anchors, each marked with `jouleprof mark`.

    jouleprof run -- python3 bench/gpu/phase_load.py [SECONDS...]

After a warm-up, for each duration (default 1, 3 and 6 s): `jouleprof mark begin loadN`,
bf16 8192x8192 matrix products on cuda:0 for that long (synchronised), `jouleprof mark end
loadN`, then 1.5 s idle. The phases end between the counter's 10 s anchors, so their GPU
energy comes from the power profile scaled to the counter (src/report/anchored.hpp).
bench/gpu/phase_truth.py compares it with the driver's counter read back to back by
bench/gpu/field_capture.py in another process. Needs PyTorch with CUDA and `jouleprof` on
PATH.
"""
import subprocess
import sys
import time

import torch


def mark(kind, name):
    subprocess.run(["jouleprof", "mark", kind, name], check=True)


def main():
    durations = [float(s) for s in sys.argv[1:]] or [1.0, 3.0, 6.0]
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(10):
        a @ b
    torch.cuda.synchronize()
    time.sleep(1.5)
    for i, seconds in enumerate(durations, 1):
        mark("begin", f"load{i}")
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            for _ in range(5):
                a @ b
            torch.cuda.synchronize()
        mark("end", f"load{i}")
        time.sleep(1.5)


if __name__ == "__main__":
    main()

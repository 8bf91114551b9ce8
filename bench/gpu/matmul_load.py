#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A steady GPU load: bf16 8192x8192 matrix products on cuda:0 for SECONDS.

    python3 bench/gpu/matmul_load.py SECONDS

Prints the products' rate (TFLOP/s) when done. Needs PyTorch with CUDA.
"""
import sys
import time

import torch


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: matmul_load.py SECONDS")
    seconds = float(sys.argv[1])
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    start = time.monotonic()
    products = 0
    while time.monotonic() - start < seconds:
        for _ in range(20):
            a @ b
        torch.cuda.synchronize()
        products += 20
    elapsed = time.monotonic() - start
    print(f"{products} products in {elapsed:.1f} s: {2 * n**3 * products / elapsed / 1e12:.0f} TFLOP/s")


if __name__ == "__main__":
    main()

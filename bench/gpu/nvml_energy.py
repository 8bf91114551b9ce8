#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""GPU 0's total-energy counter in mJ (nvmlDeviceGetTotalEnergyConsumption), one line:
the independent reading bench/gpu/check.sh compares jouleprof's GPU energy with."""
import pynvml as nv

nv.nvmlInit()
print(nv.nvmlDeviceGetTotalEnergyConsumption(nv.nvmlDeviceGetHandleByIndex(0)))
nv.nvmlShutdown()

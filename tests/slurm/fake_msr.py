#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Stands in for /dev/cpu/0/msr for Slurm's acct_gather_energy/rapl, which
opens that file, seeks to a register number and reads 8 bytes. Keeps register
0x606 (RAPL power unit: energy in 2^-ESU J) and 0x611 (package energy, a
32-bit counter) at a constant power, so Slurm's node energy is known exactly.
Usage: fake_msr.py PATH WATTS   (runs until stopped)"""
import os
import struct
import sys
import time

ESU = 14  # energy status unit, 2^-14 J: the common Intel value
path, watts = sys.argv[1], float(sys.argv[2])
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
os.pwrite(fd, struct.pack("<Q", (ESU << 8) | 0x3), 0x606)
os.pwrite(fd, struct.pack("<Q", 0), 0x619)  # DRAM energy stays 0
start = time.monotonic()
while True:
    ticks = int(watts * (time.monotonic() - start) * (1 << ESU)) & 0xFFFFFFFF
    os.pwrite(fd, struct.pack("<Q", ticks), 0x611)
    time.sleep(0.05)

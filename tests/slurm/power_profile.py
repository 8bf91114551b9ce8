# SPDX-License-Identifier: BSD-3-Clause
"""A fake powercap package whose counter follows a known power profile.

  power_profile.py write ROOT [K]    makes ROOT/sys/class/powercap/intel-rapl:0 and
                                     rewrites energy_uj every millisecond until SIGTERM
                                     (K: the profile scaled by K, default 1; kept in ROOT/scale)
  power_profile.py joules ROOT A B   the exact energy between CLOCK_MONOTONIC A and B (ns)
  power_profile.py slack ROOT        how far a reading of the counter can be from that:
                                     two edges, each up to the writer's longest gap between
                                     writes (ROOT/max_gap_ns) at the profile's highest power

The writer is a process like any other: on a loaded machine it can be descheduled for
tens of milliseconds, and the counter then holds an old value. A check compares
jouleprof's energy with the profile's within max(0.5 %, slack), so it asserts what
jouleprof computed from the counter, not how promptly the machine ran the writer.

P(t) = BASE + AMP*sin(2*pi*t/PERIOD), t since the writer's start (ROOT/t0_ns).
"""
import math
import os
import signal
import sys
import time
from pathlib import Path

BASE_W, AMP_W, PERIOD_S, TICK_S = 120.0, 50.0, 1.3, 0.001
RANGE_J = 4294.967296


def energy_at(t0_ns: int, t_ns: int, scale: float = 1.0) -> float:
    t = (t_ns - t0_ns) * 1e-9
    w = 2 * math.pi / PERIOD_S
    return scale * (BASE_W * t + AMP_W * (1 - math.cos(w * t)) / w)


def put(path: Path, text: str) -> None:
    """Replaces a file whole: a reader in another process sees the old text or the new, never
    the empty file that write_text leaves between truncating and writing."""
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)


def write(root: Path, scale: float) -> None:
    zone = root / "sys/class/powercap/intel-rapl:0"
    zone.mkdir(parents=True)
    for name, value in (("name", "package-0"), ("energy_uj", "0" * 13), ("enabled", "1"),
                        ("max_energy_range_uj", str(int(RANGE_J * 1e6)))):
        (zone / name).write_text(value + "\n")
    (root / "config.toml").write_text("[sensors.estimate]\nenabled = false\n")
    (root / "scale").write_text(str(scale))
    t0 = time.monotonic_ns()
    put(root / "t0_ns", str(t0))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    fd = os.open(zone / "energy_uj", os.O_WRONLY)
    last = t0
    max_gap = 0
    put(root / "max_gap_ns", "0")
    while not stop:
        now = time.monotonic_ns()
        e = math.fmod(energy_at(t0, now, scale), RANGE_J)
        os.pwrite(fd, f"{int(e * 1e6):013d}\n".encode(), 0)
        if now - last > max_gap:
            max_gap = now - last
            put(root / "max_gap_ns", str(max_gap))
        last = now
        time.sleep(TICK_S)


if __name__ == "__main__":
    root = Path(sys.argv[2])
    if sys.argv[1] == "write":
        write(root, float(sys.argv[3]) if len(sys.argv) > 3 else 1.0)
    elif sys.argv[1] == "slack":
        k = float((root / "scale").read_text()) if (root / "scale").exists() else 1.0
        print(2 * k * (BASE_W + AMP_W) * int((root / "max_gap_ns").read_text()) * 1e-9)
    else:
        t0 = int((root / "t0_ns").read_text())
        k = float((root / "scale").read_text()) if (root / "scale").exists() else 1.0
        print(energy_at(t0, int(sys.argv[4]), k) - energy_at(t0, int(sys.argv[3]), k))

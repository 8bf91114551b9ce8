# SPDX-License-Identifier: BSD-3-Clause
"""A fake powercap tree whose package counter follows a known power profile.

The writer runs as its own process (not a thread under the GIL), rewriting
energy_uj every ``tick`` like the hardware does: P(t) = base + amp·sin(2πt/period).
The exact energy over any span of CLOCK_MONOTONIC is known (joules_between),
as in tests/integration/profile_writer.cpp.
"""
from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BASE_W, AMP_W, PERIOD_S, TICK_S = 150.0, 60.0, 1.7, 0.0002
RANGE_J = 4294.967296


def energy_at(t0_ns: int, t_ns: int) -> float:
    t = (t_ns - t0_ns) * 1e-9
    w = 2 * math.pi / PERIOD_S
    return BASE_W * t + AMP_W * (1 - math.cos(w * t)) / w


def write_loop(path: str, t0_ns: int, gap_file: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    last, max_gap, stop = 0, 0, []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while not stop:
        now = time.monotonic_ns()
        if last and now - last > max_gap:
            max_gap = now - last
            Path(gap_file + ".new").write_text(str(max_gap))
            os.replace(gap_file + ".new", gap_file)  # readers never see a half-written file
        last = now
        e = math.fmod(energy_at(t0_ns, now), RANGE_J)
        os.pwrite(fd, f"{int(e * 1e6):013d}\n".encode(), 0)
        time.sleep(TICK_S)
    os.close(fd)


class FakeNode:
    """The tree under root, its config (no estimate sensor) and the writer process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        zone = root / "sys/class/powercap/intel-rapl:0"
        zone.mkdir(parents=True)
        (zone / "name").write_text("package-0\n")
        (zone / "energy_uj").write_text("0000000000000\n")
        (zone / "max_energy_range_uj").write_text(f"{int(RANGE_J * 1e6)}\n")
        (zone / "enabled").write_text("1\n")
        (zone / "constraint_0_name").write_text("long_term\n")
        (zone / "constraint_0_power_limit_uw").write_text("165000000\n")
        (zone / "constraint_0_time_window_us").write_text("999424\n")
        self.energy_uj = zone / "energy_uj"
        self.config = root / "config.toml"
        self.config.write_text("[sensors.estimate]\nenabled = false\n")
        self.gap_file = root / "writer_max_gap_ns"
        self.t0_ns = time.monotonic_ns()
        self.process = subprocess.Popen(
            [sys.executable, __file__, str(self.energy_uj), str(self.t0_ns), str(self.gap_file)])
        self.wait_for_the_writer()

    def wait_for_the_writer(self, timeout_s: float = 60.0) -> None:
        """Returns once the counter follows the profile: until the writer's first write the
        file holds 0, and a run that started on that 0 would count the energy since t0
        (on a loaded machine the writer's Python takes a while to start)."""
        deadline = time.monotonic() + timeout_s
        while int(self.energy_uj.read_text() or 0) == 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the fake counter's writer did not write {self.energy_uj}")
            time.sleep(0.005)

    def joules_between(self, a_ns: int, b_ns: int) -> float:
        """Exact energy of the profile between two CLOCK_MONOTONIC times."""
        return energy_at(self.t0_ns, b_ns) - energy_at(self.t0_ns, a_ns)

    def stall_joules(self) -> float:
        """Joules a reading can be off at an edge through the writer's stalls."""
        gap = int(self.gap_file.read_text()) if self.gap_file.exists() else 0
        return (BASE_W + AMP_W) * max(gap, int(TICK_S * 1e9)) * 1e-9

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


if __name__ == "__main__":
    write_loop(sys.argv[1], int(sys.argv[2]), sys.argv[3])

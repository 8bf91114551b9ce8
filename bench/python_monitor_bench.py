#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""CPU cost of the in-process monitor (jouleprof.Monitor) from Python, at 2 Hz and 100 Hz.

The process's CPU time (all threads: the sampler's and the recorder's) while the
main thread sleeps inside a Monitor, minus the same sleep without one, per
second of wall time. Sensors: a fake powercap tree (two packages and their
DRAM, counters driven by a writer in another process, whose CPU is not
counted), or the node's own with --real. A benchmark: it prints figures and
asserts nothing.

    PYTHONPATH=build/py/python /usr/bin/python3 bench/python_monitor_bench.py [--seconds 20]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "python"))


def cpu_while_sleeping(seconds: float, monitor: object | None) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.monotonic()
    if monitor is not None:
        monitor.start()  # type: ignore[attr-defined]
    time.sleep(seconds)
    if monitor is not None:
        monitor.stop()  # type: ignore[attr-defined]
    return time.process_time() - c0, time.monotonic() - w0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per rate (default 20)")
    parser.add_argument("--real", action="store_true", help="the node's own sensors")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="jp-pybench-"))
    node = None
    if not args.real:
        from fake_node import FakeNode  # the tests' fake powercap tree and counter writer
        node = FakeNode(tmp / "node")
        for i, name in ((1, "package-1"),):
            zone = node.root / f"sys/class/powercap/intel-rapl:{i}"
            zone.mkdir(parents=True)
            for f in ("name", "max_energy_range_uj", "enabled"):
                (zone / f).write_text((node.energy_uj.parent / f).read_text())
            (zone / "name").write_text(f"{name}\n")
            os.symlink(node.energy_uj, zone / "energy_uj")
        os.environ["JOULEPROF_SYSFS_ROOT"] = str(node.root)
        os.environ["JOULEPROF_CONFIG"] = str(node.config)
    import jouleprof

    try:
        base_cpu, base_wall = cpu_while_sleeping(args.seconds, None)
        print(f"jouleprof.Monitor: {args.seconds:.0f} s per rate, "
              f"{'real sensors' if args.real else 'fake powercap tree (2 packages)'}")
        print(f"{'rate':>7} {'interval':>9} {'CPU [s]':>9} {'of one core':>12} "
              f"{'ticks/s':>9} {'per tick [us]':>15} {'monitor_cpu_s':>14}")
        for hz in (2, 100):
            mon = jouleprof.Monitor(f"bench-{hz}hz", output=str(tmp / f"{hz}hz.jptrace"),
                                    interval=1.0 / hz)
            cpu, wall = cpu_while_sleeping(args.seconds, mon)
            extra = cpu - base_cpu * wall / base_wall
            assert mon.result is not None
            trace = jouleprof.Trace(mon.result.trace)
            reads = len(trace.samples()) / max(1, len(trace.channels))  # sampler ticks
            print(f"{hz:>5}Hz {1000 / hz:>7.0f}ms {extra:>9.3f} {100 * extra / wall:>11.3f}% "
                  f"{reads / wall:>9.1f} {1e6 * extra / reads:>15.1f} "
                  f"{mon.result.to_dict()['monitor_cpu_s']:>14.3f}")
    finally:
        if node is not None:
            node.stop()


if __name__ == "__main__":
    main()

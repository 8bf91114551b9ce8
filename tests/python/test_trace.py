# SPDX-License-Identifier: BSD-3-Clause
"""jouleprof.Trace: DataFrames equal to `jouleprof report --json`; half-written traces; errors."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import jouleprof
from conftest import jouleprof_binary
from fake_node import FakeNode


def measured_trace(tmp_path: Path) -> str:
    with jouleprof.Monitor("two", output=tmp_path / "t.jptrace"):
        with jouleprof.phase("a"):
            time.sleep(0.3)
        time.sleep(0.2)
    return str(tmp_path / "t.jptrace")


def test_summary_equals_report_json(node: FakeNode, tmp_path: Path) -> None:
    path = measured_trace(tmp_path)
    cli = subprocess.run([jouleprof_binary(), "report", "--json", path], check=True,
                         capture_output=True, text=True, timeout=60)
    expected = json.loads(cli.stdout)
    t = jouleprof.Trace(path)
    assert t.report() == expected
    summary = t.summary()
    rows = []
    for group in expected["groups"]:
        for run in group["runs"]:
            for item in [run["node"], *run["parts"]] + ([run["rest"]] if run["rest"] else []):
                rows.append((group["label"], run["id"], item["name"], item["energy_j"],
                             item["avg_w"], item["peak_w"], run["runtime_s"]))
    got = [tuple(r) for r in summary[summary["role"] != "not_summed"][
        ["label", "run", "item", "energy_j", "avg_w", "peak_w", "runtime_s"]].itertuples(
            index=False)]
    assert got == rows and len(rows) >= 2
    # The sensors' bound beside each figure: the fake node's counter has one, around it.
    node = summary[summary["role"] == "node"].iloc[0]
    first = expected["groups"][0]["runs"][0]["node"]
    assert (node["energy_low_j"], node["energy_high_j"]) == (first["energy_low_j"],
                                                              first["energy_high_j"])
    assert node["energy_low_j"] <= node["energy_j"] <= node["energy_high_j"]
    assert node["bound_dominant"] == first["bound_dominant"] and node["measurable"]
    # What the bound rests on, in the CSV export's words (JSON's bound_assumes_* keys).
    said = [k for k in ("peak", "profile", "field", "windows") if first["bound_assumes_" + k]]
    assert node["bound_assumes"] == ";".join(said)
    # Where the sensors' bounds put the true peak, as the report's JSON gives it.
    assert (node["peak_low_w"], node["peak_high_w"]) == (first["peak_low_w"], first["peak_high_w"])
    assert node["peak_low_w"] <= node["peak_high_w"]
    said = [k for k in ("peak", "profile", "field", "windows") if first["peak_assumes_" + k]]
    assert node["peak_assumes"] == ";".join(said)
    phases = t.phases()
    assert list(phases["phase"]) == ["a"]
    assert phases["energy_j"][0] == expected["groups"][0]["runs"][0]["phases"][0]["node"][
        "energy_j"]


def test_samples_frame(node: FakeNode, tmp_path: Path) -> None:
    t = jouleprof.Trace(measured_trace(tmp_path))
    s = t.samples()
    assert {"run", "channel", "t_s", "time", "energy_j", "power_w", "flags"} <= set(s.columns)
    assert list(t.channels["name"]) == ["cpu0.package"] and list(t.channels["unit"]) == ["J"]
    pkg = s[s["channel"] == "cpu0.package"]
    assert abs(pkg["t_s"].iloc[0]) < 1e-3 and pkg["energy_j"].iloc[0] == 0  # the start edge
    assert pkg["energy_j"].is_monotonic_increasing and pkg["t_s"].is_monotonic_increasing
    assert str(s["time"].dt.tz) == "UTC"
    run = t.runs.iloc[0]
    # The end edge: read right after the job's end, stamped at the middle of its read (on a
    # loaded machine a read can take more than a millisecond).
    assert run["runtime_s"] - 1e-3 <= pkg["t_s"].iloc[-1] <= run["runtime_s"] + 0.05
    summary = t.summary()
    node_j = summary[summary["role"] == "node"]["energy_j"].iloc[0]
    assert pkg["energy_j"].iloc[-1] == pytest.approx(node_j, rel=1e-3)
    since_start = (s["time"] - run["start_time"]).dt.total_seconds()
    assert list(since_start) == pytest.approx(list(s["t_s"]), abs=1e-6)


KILLED_MONITOR = """
import sys, time, jouleprof
jouleprof.configure(config=sys.argv[2], interval=0.1)
jouleprof.Monitor("killed", output=sys.argv[1]).start()
print("started", flush=True)
time.sleep(60)
"""


def test_a_killed_monitors_trace(node: FakeNode, tmp_path: Path) -> None:
    path = tmp_path / "killed.jptrace"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_MONITOR, str(path), str(node.config)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        # Read it while it is being written until a second of samples has been committed
        # (the writer commits every second; how soon depends on the machine, not the test).
        deadline = time.monotonic() + 60
        while True:
            live = jouleprof.Trace(path)
            assert list(live.runs["status"]) == ["running"]
            seen = live.samples()
            if (len(seen) and seen["t_s"].max() >= 1.0) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    t = jouleprof.Trace(path)
    assert list(t.runs["status"]) == ["running"] and pd.isna(t.runs["end_s"].iloc[0])
    s = t.samples()
    assert len(s) >= 5 and s["t_s"].max() >= 1.0
    summary = t.summary()
    node_row = summary[summary["role"] == "node"].iloc[0]
    assert node_row["energy_j"] > 0 and node_row["runtime_s"] >= 1.0
    assert node_row["energy_j"] == pytest.approx(s["energy_j"].max(), rel=0.05)


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError, match="nope.jptrace"):
        jouleprof.Trace("nope.jptrace")


def test_not_a_trace(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("this is not a trace\n" * 100)
    with pytest.raises(jouleprof.TraceError, match="notes.txt"):
        jouleprof.Trace(bad)
    with pytest.raises(ValueError):  # TraceError is a ValueError
        jouleprof.Trace(tmp_path)
    empty = tmp_path / "empty.jptrace"
    empty.write_bytes(b"")
    with pytest.raises(jouleprof.TraceError):
        jouleprof.Trace(empty)


def test_version_is_the_clis() -> None:
    """jouleprof.__version__ and __commit__ are what `jouleprof --version` prints."""
    out = subprocess.run([jouleprof_binary(), "--version"], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == f"jouleprof {jouleprof.__version__} (commit {jouleprof.__commit__})"

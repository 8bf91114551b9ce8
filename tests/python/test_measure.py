# SPDX-License-Identifier: BSD-3-Clause
"""measure / phase / mark / Monitor on a fake powercap tree with a known profile."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

import jouleprof
from fake_node import FakeNode

PACKAGE = "cpu0.package"


def edges(trace: str, run_id: int) -> tuple[int, int]:
    """A run's exact edges on CLOCK_MONOTONIC."""
    t = jouleprof.Trace(trace)
    epoch = int(t.meta["epoch_mono_ns"])
    run = t.runs.set_index("id").loc[run_id]
    return epoch + int(run["start_ns"]), epoch + int(run["end_ns"])


def marker_times(trace: str, name: str) -> list[int]:
    t = jouleprof.Trace(trace)
    epoch = int(t.meta["epoch_mono_ns"])
    m = t.markers
    return [epoch + int(x) for x in m[m["name"] == name]["t_ns"]]


def test_block_energy_matches_the_profile_over_its_edges(node: FakeNode, tmp_path: Path) -> None:
    with jouleprof.measure("exact", output=tmp_path / "exact.jptrace") as m:
        time.sleep(2.5)
    r = m.result
    assert r is not None and r.label == "exact" and not r.failed
    start, end = edges(r.trace, r.to_dict()["id"])
    truth = node.joules_between(start, end)
    assert r.parts[PACKAGE] == pytest.approx(truth, abs=truth * 0.001 + 2 * node.stall_joules())
    assert r.runtime_s == pytest.approx((end - start) * 1e-9, abs=1e-9)
    assert r.runtime_s >= 2.5
    assert r.energy_j == pytest.approx(r.parts[PACKAGE])  # no node meter: the sum of parts
    assert r.avg_w == pytest.approx(r.energy_j / r.runtime_s)


def test_result_has_run_json_keys_text_and_html(node: FakeNode) -> None:
    with jouleprof.measure("forms") as m:
        time.sleep(0.3)
    r = m.result
    assert r is not None
    d = r.to_dict()
    for key in ("runtime_s", "node", "parts", "rest", "not_summed", "phases", "phase_totals",
                "points", "power", "label", "trace", "status", "node_basis", "monitor_cpu_s"):
        assert key in d
    assert d["node"]["energy_j"] == r.energy_j and d["status"] == "complete"
    assert "forms" in str(r) and PACKAGE in str(r)
    html = r._repr_html_()
    assert "<svg" in html and "<table" in html and PACKAGE in html
    d["label"] = "changed"  # a copy
    assert r.label == "forms"


def test_phases_and_marks(node: FakeNode) -> None:
    with jouleprof.measure("phased") as m:
        for epoch in (1, 2):
            with jouleprof.phase(f"epoch {epoch}"):
                time.sleep(0.4)
        assert jouleprof.mark("checkpoint")
    r = m.result
    assert r is not None
    phases = {p["name"]: p for p in r.phases}
    assert set(phases) == {"epoch 1", "epoch 2"}
    for name, p in phases.items():
        begin, end = marker_times(r.trace, name)
        truth = node.joules_between(begin, end)
        # The fake counter lags the profile while its writer is descheduled (a loaded machine):
        # each of the two readings may be off by that stall.
        slack = truth * 0.01 + 0.5 + 2 * node.stall_joules()
        assert p["node"]["energy_j"] == pytest.approx(truth, abs=slack)
        assert 0.4 <= p["runtime_s"] < 5  # a loaded machine may oversleep
    assert [p["name"] for p in r.to_dict()["points"]] == ["checkpoint"]
    assert not jouleprof.mark("outside")  # no run open: nothing done


def test_decorator_measures_every_call(node: FakeNode) -> None:
    @jouleprof.measure()
    def step(seconds: float) -> str:
        time.sleep(seconds)
        return "done"

    assert step(0.2) == "done" and step(0.3) == "done"
    results = step.results  # type: ignore[attr-defined]
    assert [r.label for r in results] == [step.__qualname__] * 2
    assert results[1].runtime_s > results[0].runtime_s
    runs = jouleprof.Trace(results[0].trace).runs
    assert list(runs["label"]) == [step.__qualname__] * 2


def test_nested_measurements(node: FakeNode) -> None:
    with jouleprof.measure("outer") as outer:
        time.sleep(0.2)
        with jouleprof.measure("inner") as inner:
            with jouleprof.phase("inside"):
                time.sleep(0.5)
        time.sleep(0.2)
    o, i = outer.result, inner.result
    assert o is not None and i is not None
    assert i.label == "inner" and 0.5 <= i.runtime_s < o.runtime_s
    begin, end = marker_times(o.trace, "inner")
    truth = node.joules_between(begin, end)
    slack = truth * 0.01 + 0.5 + 2 * node.stall_joules()  # the writer's stalls, as above
    assert i.parts[PACKAGE] == pytest.approx(truth, abs=slack)
    assert [p["name"] for p in i.phases] == ["inside"]
    assert {p["name"] for p in o.phases} == {"inner", "inside"}
    assert len(jouleprof.Trace(o.trace).runs) == 1  # one run; the inner block is a phase of it


def test_an_exception_is_not_swallowed(node: FakeNode) -> None:
    m = jouleprof.measure("boom")
    with pytest.raises(ValueError, match="boom"):
        with m:
            raise ValueError("boom")
    assert m.result is not None and m.result.failed
    assert not jouleprof.active()


def test_monitor_start_stop(node: FakeNode, tmp_path: Path) -> None:
    mon = jouleprof.Monitor("session", output=tmp_path / "mon.jptrace").start()
    assert mon.running and jouleprof.active()
    with pytest.raises(RuntimeError):
        jouleprof.Monitor().start()  # one run at a time
    with jouleprof.measure("work"):
        time.sleep(0.3)
    snap = mon.snapshot()
    assert snap.runtime_s > 0.3
    time.sleep(0.2)
    r = mon.stop()
    assert not mon.running and not jouleprof.active()
    assert r.trace == str(tmp_path / "mon.jptrace")
    assert [p["name"] for p in r.phases] == ["work"]
    assert r.runtime_s > snap.runtime_s
    with pytest.raises(RuntimeError):
        mon.stop()


def test_a_block_gets_its_share_of_the_node(node: FakeNode) -> None:
    """The block is this process: its CPU time against the node's splits each part's energy
    (docs/attribution.md); the shares add up to the node's figures."""
    with jouleprof.measure("share") as m:
        end = time.monotonic() + 0.6
        while time.monotonic() < end:  # busy: this process's own CPU time
            pass
    r = m.result
    assert r is not None
    a = r.attribution
    assert a is not None, "the block's CPU use was not recorded"
    assert "process tree" in a["job_cpu"]
    assert a["job_cpu_s"] > 0.3
    assert a["node_j"] == pytest.approx(r.energy_j, abs=1e-3)
    for p in r.to_dict()["parts"]:
        s = p["share"]
        assert s["job_j"] + s["unallocated_j"] + s["other_j"] == pytest.approx(p["energy_j"], abs=1e-3)
    assert r.job_j == (r.energy_j if a["exclusive"] else pytest.approx(a["job_j"]))
    # Each with the sensors' bound around it (the fake node's counter).
    assert r.energy_bound is not None and r.job_bound is not None
    assert r.energy_bound[0] <= r.energy_j <= r.energy_bound[1]
    assert r.job_bound[0] <= r.job_j <= r.job_bound[1]


def test_cpu_used_before_a_block_is_not_the_blocks(node: FakeNode) -> None:
    end = time.monotonic() + 0.8
    while time.monotonic() < end:  # this process's CPU time before the block
        pass
    with jouleprof.measure("after") as m:
        time.sleep(0.5)
    a = m.result.attribution if m.result else None
    assert a is not None
    assert a["job_cpu_s"] < 0.3, a  # the sleeping block, not the 0.8 s before it


def test_durations_as_the_cli_takes_them_and_its_words_for_bad_ones(node: FakeNode,
                                                                     tmp_path: Path) -> None:
    assert jouleprof.__version__ and jouleprof.__version__[0].isdigit()
    assert jouleprof.Monitor(interval="100ms").interval == pytest.approx(0.1)
    assert jouleprof.Monitor(interval="2s").interval == 2.0
    assert jouleprof.Monitor(interval=0.25).interval == 0.25
    for bad, words in (("100x", "interval: duration '100x': unknown unit 'x'"),
                       ("fast", "interval: duration 'fast': expected a number with a unit"),
                       (1e308, "interval: too long"),
                       ("0.5us", "interval: must be at least 1ms"),
                       (0, "interval: must be at least 1ms"),
                       (float("nan"), "interval: must be a finite number of seconds")):
        with pytest.raises(ValueError) as e:
            jouleprof.measure("x", interval=bad)
        assert str(e.value).startswith(words), str(e.value)
    with pytest.raises(TypeError, match="interval must be a number of seconds or a duration"):
        jouleprof.Monitor(interval=[1])  # type: ignore[arg-type]
    # configure() the same, before the first measurement; the measurement uses it.
    jouleprof.close()
    with pytest.raises(ValueError, match="interval: duration '1 fortnight'"):
        jouleprof.configure(interval="1 fortnight")
    jouleprof.configure(interval="50ms", output=str(tmp_path / "d.jptrace"))
    with jouleprof.measure("work"):
        time.sleep(0.3)
    t = jouleprof.Trace(jouleprof.close())
    assert t.meta["interval_ns"] == "50000000"


def test_blocks_with_traces_of_their_own_in_one_second_get_names_of_their_own(
        node: FakeNode, tmp_path: Path) -> None:
    # Each block with interval= writes a trace of its own in the trace directory.
    for _ in range(3):
        with jouleprof.measure("quick", interval="50ms"):
            time.sleep(0.05)
    traces = sorted((tmp_path / "state" / "jouleprof" / "traces").glob("*.jptrace"))
    assert len(traces) == 3, traces

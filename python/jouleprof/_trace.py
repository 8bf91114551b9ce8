# SPDX-License-Identifier: BSD-3-Clause
"""Reading traces: jouleprof.Trace(path) as pandas DataFrames."""
from __future__ import annotations

import json
import os
from typing import Any, Iterable, Optional, Union

from . import _core

_VALUE_COLUMN = {"energy": "energy_j", "power": "power_w", "utilization": "utilization_pct"}


_BOUND_COLUMNS = ["energy_low_j", "energy_high_j", "bound_dominant", "measurable",
                  "job_j", "job_low_j", "job_high_j", "bound_assumes", "peak_low_w",
                  "peak_high_w", "peak_assumes"]

# What a bound rests on beyond the sensors' limits, as report --json's bound_assumes_* keys.
_ASSUMPTIONS = ["peak", "profile", "field", "windows"]


def _bound_columns(item: dict[str, Any]) -> dict[str, Any]:
    """An item's bound and job's share as report --json gives them; NaN/None where absent."""
    nan = float("nan")
    share = item.get("share") or {}
    return {"energy_low_j": item.get("energy_low_j", nan),
            "energy_high_j": item.get("energy_high_j", nan),
            "bound_dominant": item.get("bound_dominant"),
            "measurable": item.get("measurable"),
            "job_j": share.get("job_j", nan),
            "job_low_j": share.get("job_low_j", nan),
            "job_high_j": share.get("job_high_j", nan),
            "bound_assumes": _assumes(item, "bound_assumes_"),
            # Where the sensors' bounds put the true peak (a counter's, and the node's).
            "peak_low_w": _number(item.get("peak_low_w")),
            "peak_high_w": _number(item.get("peak_high_w")),
            "peak_assumes": _assumes(item, "peak_assumes_")}


def _assumes(item: dict[str, Any], prefix: str) -> Optional[str]:
    """As the summary CSV: "peak;field", "" for none, None where there is no bound."""
    if prefix + "peak" not in item:
        return None
    return ";".join(a for a in _ASSUMPTIONS if item.get(prefix + a))


def _number(v: Any) -> float:
    return float("nan") if v is None else float(v)


def _pandas() -> Any:
    try:
        import pandas  # noqa: PLC0415 (pandas is only needed for DataFrames)
    except ImportError as e:  # pragma: no cover - depends on the host
        raise ImportError("jouleprof.Trace's DataFrames need pandas "
                          "(Debian: apt install python3-pandas)") from e
    return pandas


class Trace:
    """A jouleprof trace file, also one still being written or whose monitor was killed.

    ``runs``, ``channels`` and ``markers`` are DataFrames; ``samples()`` and
    ``summary()`` too, with times in seconds since the run began (``t_s``)
    and as UTC timestamps (``time``), and units in the column names.
    A missing file raises FileNotFoundError; a file that is not a trace
    raises jouleprof.TraceError (a ValueError).
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        self.path = os.fspath(path)
        self._file = _core.TraceFile(self.path)
        info = self._file.info()
        self.meta: dict[str, str] = info["meta"]
        self.version: int = info["version"]
        self._channels: list[dict[str, Any]] = info["channels"]
        self._runs: list[dict[str, Any]] = info["runs"]
        self._epoch_wall_ns = int(self.meta.get("epoch_wall_ns", "0"))

    def __repr__(self) -> str:
        return (f"<jouleprof.Trace {self.path!r}: {len(self._runs)} runs, "
                f"{len(self._channels)} channels>")

    def _time(self, t_ns: Any) -> Any:
        pd = _pandas()
        return pd.to_datetime(self._epoch_wall_ns + t_ns, unit="ns", utc=True)

    @property
    def runs(self) -> Any:
        """One row per run: id, label, kind, status, start/end (s since the trace epoch, UTC)."""
        pd = _pandas()
        df = pd.DataFrame(self._runs, columns=["id", "label", "kind", "repeat", "command",
                                               "start_ns", "end_ns", "start_utc", "exit_code",
                                               "signal", "monitor_cpu_s", "status"])
        df["start_s"] = df["start_ns"] * 1e-9
        df["end_s"] = pd.to_numeric(df["end_ns"], errors="coerce") * 1e-9
        df["runtime_s"] = df["end_s"] - df["start_s"]
        df["start_time"] = self._time(df["start_ns"].astype("int64"))
        return df

    @property
    def channels(self) -> Any:
        """One row per channel: name, domain, quantity, unit, provenance, backend, source."""
        return _pandas().DataFrame(self._channels)

    def _run(self, run_id: int) -> dict[str, Any]:
        for r in self._runs:
            if r["id"] == run_id:
                return r
        raise KeyError(f"{self.path}: no run {run_id}")

    def _run_ids(self, runs: Optional[Iterable[int]]) -> list[int]:
        ids = [r["id"] for r in self._runs] if runs is None else list(runs)
        for run_id in ids:
            self._run(run_id)
        return ids

    @property
    def markers(self) -> Any:
        """Every marker: run, kind (begin/end/point), name, t_s since its run began, time."""
        pd = _pandas()
        rows = []
        for run in self._runs:
            for t_ns, kind, name in self._file.markers(run["id"]):
                rows.append({"run": run["id"], "kind": kind, "name": name, "t_ns": t_ns,
                             "t_s": (t_ns - run["start_ns"]) * 1e-9})
        df = pd.DataFrame(rows, columns=["run", "kind", "name", "t_ns", "t_s"])
        df["time"] = self._time(df["t_ns"].astype("int64"))
        return df

    def samples(self, runs: Optional[Iterable[int]] = None,
                channels: Optional[Iterable[str]] = None) -> Any:
        """Samples in long form: run, channel, t_ns, t_s, time, and the value in
        energy_j (cumulative since the run began), power_w or utilization_pct
        by the channel's quantity; flags (1 exact edge, 2 jump, 4 wrapped, 8 interpolated).
        """
        pd = _pandas()
        wanted = None if channels is None else set(channels)
        frames = []
        for run_id in self._run_ids(runs):
            start = self._run(run_id)["start_ns"]
            for index, ch in enumerate(self._channels):
                if wanted is not None and ch["name"] not in wanted:
                    continue
                t_ns, values, flags = self._file.samples(run_id, index)
                frame = pd.DataFrame({"run": run_id, "channel": ch["name"], "t_ns": t_ns,
                                      "t_s": (t_ns - start) * 1e-9, "flags": flags})
                for quantity, column in _VALUE_COLUMN.items():
                    frame[column] = values if ch["quantity"] == quantity else float("nan")
                frames.append(frame)
        columns = ["run", "channel", "t_ns", "t_s", "flags", *_VALUE_COLUMN.values()]
        df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
        df["time"] = self._time(df["t_ns"].astype("int64"))
        return df

    def report(self) -> dict[str, Any]:
        """What ``jouleprof report --json TRACE`` prints, as a dict."""
        result: dict[str, Any] = json.loads(self._file.report_json())
        return result

    def summary(self) -> Any:
        """The report's figures, one row per run and item (node, each part, the
        rest, sub-domains not summed): energy_j, avg_w, peak_w, runtime_s,
        provenance; the sensors' bound (energy_low_j, energy_high_j, bound_dominant,
        measurable, bound_assumes: NaN/None where a figure has none, docs/uncertainty.md);
        on a shared node the job's share and its bound (job_j, job_low_j, job_high_j,
        docs/attribution.md); the same figures as ``jouleprof report --json``.
        """
        pd = _pandas()
        rows = []
        for group in self.report()["groups"]:
            for pooled, runs in ((True, group["runs"]), (False, group["left_out"])):
                for run in runs:
                    items = [("node", run["node"])] + [("part", p) for p in run["parts"]]
                    items += [("rest", run["rest"])] if run["rest"] else []
                    items += [("not_summed", p) for p in run["not_summed"]]
                    for role, item in items:
                        rows.append({"label": group["label"], "run": run["id"],
                                     "repeat": run["repeat"], "pooled": pooled,
                                     "status": run["status"], "runtime_s": run["runtime_s"],
                                     "item": item["name"], "role": role,
                                     "domain": item["domain"],
                                     "provenance": item["provenance"],
                                     "backend": item["backend"], "energy_j": item["energy_j"],
                                     "avg_w": item["avg_w"], "peak_w": item["peak_w"],
                                     **_bound_columns(item)})
        return pd.DataFrame(rows, columns=["label", "run", "repeat", "pooled", "status",
                                           "runtime_s", "item", "role", "domain", "provenance",
                                           "backend", "energy_j", "avg_w", "peak_w",
                                           *_BOUND_COLUMNS])

    def phases(self) -> Any:
        """Every phase of every measured run: name, begin_s/end_s since the run began,
        runtime_s, node energy_j, avg_w, open_at_end, and the node's bound and job's
        share as in ``summary()``."""
        pd = _pandas()
        rows = []
        for group in self.report()["groups"]:
            for run in group["runs"] + group["left_out"]:
                for p in run["phases"]:
                    rows.append({"label": group["label"], "run": run["id"], "phase": p["name"],
                                 "begin_s": p["begin_s"], "end_s": p["end_s"],
                                 "runtime_s": p["runtime_s"],
                                 "energy_j": p["node"]["energy_j"], "avg_w": p["node"]["avg_w"],
                                 "open_at_end": p["open_at_end"], **_bound_columns(p["node"])})
        return pd.DataFrame(rows, columns=["label", "run", "phase", "begin_s", "end_s",
                                           "runtime_s", "energy_j", "avg_w", "open_at_end",
                                           *_BOUND_COLUMNS])

    def html(self, run_id: int) -> str:
        """One run as the notebook's HTML fragment (table, power profile, phases)."""
        return self._file.html(run_id)

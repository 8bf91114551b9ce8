# SPDX-License-Identifier: BSD-3-Clause
"""The result of one measurement: the figures of a run in `jouleprof run --json`."""
from __future__ import annotations

import copy
import html
import json
from typing import Any, Callable, Optional


class Result:
    """One measured block, nested block or monitor session.

    The figures are those of a run in ``jouleprof run --json`` (``to_dict()``
    holds them with the same keys and units: joules, watts, seconds).
    ``str(result)`` is the study's table as text; in a notebook the result
    shows the table and the power profile (``_repr_html_``).
    """

    def __init__(self, data_json: str, text: str,
                 html_source: Optional[Callable[[], str]] = None) -> None:
        self._data: dict[str, Any] = json.loads(data_json)
        self._text = text
        self._html_source = html_source
        self._html: Optional[str] = None

    # --- the headline figures ---
    @property
    def label(self) -> str:
        """The measurement's label."""
        return str(self._data["label"])

    @property
    def runtime_s(self) -> float:
        """Wall time of the block in seconds (exact edges)."""
        return float(self._data["runtime_s"])

    @property
    def energy_j(self) -> float:
        """Node energy in joules (see ``node_basis`` for how it was obtained)."""
        return float(self._data["node"]["energy_j"])

    @property
    def energy_bound(self) -> Optional[tuple[float, float]]:
        """Where the sensors' own limits put the node's energy: (low, high) joules, or
        None where a figure it is made of has no bound (a power reading, a model;
        docs/uncertainty.md). A bound wider than the figure: not measurable here."""
        node = self._data["node"]
        if "energy_low_j" not in node:
            return None
        return float(node["energy_low_j"]), float(node["energy_high_j"])

    @property
    def avg_w(self) -> float:
        """Average node power in watts."""
        return float(self._data["node"]["avg_w"])

    @property
    def peak_w(self) -> Optional[float]:
        """Peak node power in watts (None when it could not be resolved)."""
        peak = self._data["node"]["peak_w"]
        return None if peak is None else float(peak)

    @property
    def parts(self) -> dict[str, float]:
        """Energy in joules of every counted part (cpu0.package, gpu0, ...)."""
        return {p["name"]: float(p["energy_j"]) for p in self._data["parts"]}

    @property
    def rest_j(self) -> Optional[float]:
        """Energy of the rest of the node (node minus parts), when known."""
        rest = self._data["rest"]
        return None if rest is None else float(rest["energy_j"])

    @property
    def attribution(self) -> Optional[dict[str, Any]]:
        """The block's share of a shared node (docs/attribution.md): ``job_j``,
        ``idle_j``, ``dynamic_j``, ``unallocated_j``, ``other_j``, ``node_j``,
        ``exclusive``, ``method`` and per part; None when it was not recorded."""
        a = self._data.get("attribution")
        return None if a is None else copy.deepcopy(a)

    @property
    def job_j(self) -> float:
        """The block's own energy in joules: its share of the node when it was
        attributed (this process's CPU time against the node's), else the node's."""
        a = self._data.get("attribution")
        return self.energy_j if a is None or a["exclusive"] else float(a["job_j"])

    @property
    def job_bound(self) -> Optional[tuple[float, float]]:
        """Where the sensors put ``job_j``: (low, high) joules; the node's bound when the
        block had the node to itself or was not attributed; None without one."""
        a = self._data.get("attribution")
        if a is None or a["exclusive"]:
            return self.energy_bound
        if "job_low_j" not in a:
            return None
        return float(a["job_low_j"]), float(a["job_high_j"])

    @property
    def phases(self) -> list[dict[str, Any]]:
        """Each phase (begin/end pair) marked inside, as in ``run --json``.

        A name marked more than 100 times is totalled in ``phase_totals`` instead and
        named in ``phases_not_listed`` of ``to_dict()`` (``Trace.markers`` has every one).
        """
        return copy.deepcopy(self._data["phases"])

    @property
    def trace(self) -> str:
        """The trace file the measurement was written to."""
        return str(self._data["trace"])

    @property
    def failed(self) -> bool:
        """True when the block raised (its figures are kept)."""
        return bool(self._data["failed"])

    def to_dict(self) -> dict[str, Any]:
        """The run as in ``jouleprof run --json`` (a deep copy)."""
        return copy.deepcopy(self._data)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return (f"<jouleprof.Result {self.label!r}: {self.runtime_s:.3f} s, "
                f"node {self.energy_j:.1f} J, {self.avg_w:.1f} W>")

    def _repr_html_(self) -> str:
        if self._html is None:
            self._html = self._html_source() if self._html_source else self._table_html()
        return self._html

    def _table_html(self) -> str:
        """The parts as a table (nested blocks: their profile is the enclosing run's)."""
        rows = [self._data["node"], *self._data["parts"]]
        if self._data["rest"] is not None:
            rows.append(self._data["rest"])
        out = [f"<div class=\"jouleprof\"><p><b>{html.escape(self.label)}</b> · "
               f"{self.runtime_s:.3f} s · node {self.energy_j:.1f} J, {self.avg_w:.1f} W "
               "on average</p><table><tr><th>Part</th><th>Energy [J]</th>"
               "<th>Average [W]</th><th>Peak [W]</th><th>Provenance</th></tr>"]
        for row in rows:
            peak = "–" if row.get("peak_w") is None else f"{row['peak_w']:.1f}"
            out.append(f"<tr><td>{html.escape(row['name'])}</td><td>{row['energy_j']:.3f}</td>"
                       f"<td>{row['avg_w']:.1f}</td><td>{peak}</td>"
                       f"<td>{html.escape(row['provenance'])}</td></tr>")
        out.append("</table></div>")
        return "".join(out)

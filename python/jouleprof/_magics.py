# SPDX-License-Identifier: BSD-3-Clause
"""IPython/Jupyter: ``%load_ext jouleprof``, ``%%jouleprof`` and ``%jouleprof``."""
from __future__ import annotations

import html
import shlex
from typing import Any, Optional

from ._measure import Monitor, _seconds, measure
from ._result import Result

IDLE = "idle"
_USAGE = ("usage: %jouleprof start [--output TRACE] [--interval 100ms] | stop | report; "
          "%%jouleprof [--label L] on a cell")


def _options(line: str, allowed: set[str]) -> dict[str, str]:
    words = shlex.split(line)
    out: dict[str, str] = {}
    while words:
        word = words.pop(0)
        key = word.lstrip("-")
        if not word.startswith("--") or key not in allowed or not words:
            raise ValueError(f"bad option {word!r}. {_USAGE}")
        out[key] = words.pop(0)
    return out


def _cell_name(cell: str, number: int) -> str:
    for line in cell.splitlines():
        text = "".join(c for c in line.strip() if c.isprintable())
        if text:
            return text[:80]
    return f"cell {number}"


class SessionReport:
    """The notebook session's table: each cell's energy, the idle time between
    cells, and their shares of the node's energy."""

    def __init__(self, result: Result, cells: set[str], trace: str, running: bool) -> None:
        self.result = result
        self.trace = trace
        self.running = running
        data = result.to_dict()
        self.node_j = float(data["node"]["energy_j"])
        self.rows: list[dict[str, Any]] = []
        for p in data["phase_totals"]:
            if p["name"] in cells or p["name"] == IDLE:
                self.rows.append({"name": p["name"], "runs": p["occurrences"],
                                  "seconds": p["runtime_s"], "energy_j": p["node"]["energy_j"],
                                  "avg_w": p["node"]["avg_w"], "idle": p["name"] == IDLE})
        self.cells_j = sum(r["energy_j"] for r in self.rows if not r["idle"])
        self.idle_j = sum(r["energy_j"] for r in self.rows if r["idle"])

    def _share(self, joules: float) -> float:
        return 100.0 * joules / self.node_j if self.node_j > 0 else 0.0

    def _lines(self) -> list[tuple[str, str, str, str, str, str]]:
        out = []
        for r in self.rows:
            out.append((r["name"], str(r["runs"]), f"{r['seconds']:.2f}",
                        f"{r['energy_j']:.1f}", f"{r['avg_w']:.1f}",
                        f"{self._share(r['energy_j']):.1f}"))
        for name, joules in (("all cells", self.cells_j), ("idle between cells", self.idle_j)):
            out.append((name, "", "", f"{joules:.1f}", "", f"{self._share(joules):.1f}"))
        out.append(("node (whole session)", "", f"{self.result.runtime_s:.2f}",
                    f"{self.node_j:.1f}", f"{self.result.avg_w:.1f}", "100.0"))
        return out

    _HEAD = ("Cell", "Runs", "Time [s]", "Energy [J]", "Average [W]", "Share [%]")

    def __repr__(self) -> str:
        rows = [self._HEAD, *self._lines()]
        widths = [max(len(r[i]) for r in rows) for i in range(len(self._HEAD))]
        text = "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(r, widths))) for r in rows)
        state = "running" if self.running else "stopped"
        return (f"jouleprof notebook session ({state}): cells {self.cells_j:.1f} J, "
                f"idle {self.idle_j:.1f} J of node {self.node_j:.1f} J\n{text}\n"
                f"trace: {self.trace}")

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{h}</th>" for h in self._HEAD)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                       for r in self._lines())
        return (f"<div class=\"jouleprof\"><p><b>Notebook session</b>: cells "
                f"{self.cells_j:.1f} J, idle {self.idle_j:.1f} J of node {self.node_j:.1f} J"
                f"</p><table><tr>{head}</tr>{body}</table><p>trace: "
                f"<code>{html.escape(self.trace)}</code></p></div>")


class NotebookSession:
    """``%jouleprof start`` … ``stop``: each executed cell a phase named by its
    first line; the time between cells the phase ``idle``."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.monitor: Optional[Monitor] = None
        self.cells: set[str] = set()
        self.current: Optional[str] = None  # the open phase
        self.last: Optional[SessionReport] = None
        self.trace = ""
        self.nested = False  # inside %%jouleprof's run_cell

    def _switch(self, name: Optional[str]) -> None:
        if self.monitor is None:
            return
        if self.current is not None:
            self.monitor.mark("end", self.current)
        self.current = name
        if name is not None:
            self.monitor.mark("begin", name)

    def pre_run_cell(self, info: Any) -> None:
        if self.nested:
            return
        cell = getattr(info, "raw_cell", "") or ""
        if cell.lstrip().startswith(("%jouleprof stop", "%jouleprof report")):
            self._switch(None)
            return
        name = _cell_name(cell, self.shell.execution_count)
        self.cells.add(name)
        self._switch(name)

    def post_run_cell(self, result: Any) -> None:
        if not self.nested:
            self._switch(IDLE)

    def start(self, output: str, interval: Optional[float]) -> str:  # seconds
        if self.monitor is not None:
            raise RuntimeError("the notebook session is already measured (%jouleprof stop first)")
        self.monitor = Monitor("notebook", output=output or None, interval=interval).start()
        self.trace = self.monitor.trace or ""
        self.cells = set()
        self.current = None
        self.shell.events.register("pre_run_cell", self.pre_run_cell)
        self.shell.events.register("post_run_cell", self.post_run_cell)
        return self.trace

    def stop(self) -> SessionReport:
        if self.monitor is None:
            raise RuntimeError("no notebook session is measured (%jouleprof start first)")
        self.shell.events.unregister("pre_run_cell", self.pre_run_cell)
        self.shell.events.unregister("post_run_cell", self.post_run_cell)
        self._switch(None)
        result = self.monitor.stop()
        self.monitor = None
        self.last = SessionReport(result, self.cells, self.trace, running=False)
        return self.last

    def report(self) -> SessionReport:
        if self.monitor is not None:
            return SessionReport(self.monitor.snapshot(), self.cells, self.trace, running=True)
        if self.last is None:
            raise RuntimeError("no notebook session was measured (%jouleprof start first)")
        return self.last


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext jouleprof``: registers the ``jouleprof`` line and cell magic."""
    from IPython.core.magic import Magics, line_cell_magic, magics_class  # noqa: PLC0415
    from IPython.display import display  # noqa: PLC0415

    @magics_class
    class JouleprofMagics(Magics):  # type: ignore[misc]
        def __init__(self, shell: Any) -> None:
            super().__init__(shell)
            self.session = NotebookSession(shell)

        @line_cell_magic
        def jouleprof(self, line: str, cell: Optional[str] = None) -> Any:
            """%%jouleprof [--label L]: measure this cell.
            %jouleprof start [--output TRACE] [--interval 100ms] | stop | report:
            measure the notebook session (cells and the idle time between them)."""
            if cell is not None:
                return self._cell(line, cell)
            words = line.split(None, 1)
            command, rest = (words[0] if words else ""), (words[1] if len(words) > 1 else "")
            if command == "start":
                opts = _options(rest, {"output", "interval"})
                interval = (_seconds(opts["interval"], "--interval") if "interval" in opts
                            else None)
                trace = self.session.start(opts.get("output", ""), interval)
                print(f"jouleprof: measuring this notebook session into {trace}")
                return None
            if command in ("stop", "report"):
                report = self.session.stop() if command == "stop" else self.session.report()
                display(report)
                return None
            raise ValueError(_USAGE)

        def _cell(self, line: str, cell: str) -> None:
            opts = _options(line, {"label"})
            m = measure(opts.get("label", "cell"))
            self.session.nested = True  # run_cell's own events are not cells of the session
            try:
                with m:
                    outcome = self.shell.run_cell(cell)
                    if not outcome.success:
                        # The cell's own error: the cell fails as it would without the magic.
                        outcome.raise_error()
            finally:
                self.session.nested = False
                if m.result is not None:
                    display(m.result)

    ipython.register_magics(JouleprofMagics)


def unload_ipython_extension(ipython: Any) -> None:
    """Nothing to undo beyond what IPython does."""

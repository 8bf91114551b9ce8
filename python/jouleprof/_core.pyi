# SPDX-License-Identifier: BSD-3-Clause
"""Type stubs of jouleprof._core, the C++ engine (pybind11)."""
from typing import Any

import numpy as np
import numpy.typing as npt

__version__: str  # jouleprof's version, as `jouleprof --version` prints it
__commit__: str   # the commit the engine was built from ("-dirty": a changed tree)

def parse_duration(text: str) -> float:
    """A duration such as '500ms' or '2s' (the CLI's syntax), in seconds; ValueError if bad."""

class TraceError(ValueError):
    """A trace could not be read or written, or a measurement could not start."""

class Session:
    """One trace and one sampler; in-process runs ("blocks") are its runs."""

    def __init__(self, output: str = "", interval: float = 0.5, command: str = "python",
                 sysfs_root: str = "", config: str = "") -> None: ...
    def begin(self, label: str, command: str) -> int:
        """Begins a run at an exact edge; returns its id (0 if one is open)."""
    def mark(self, kind: str, name: str) -> int:
        """A begin/end/point marker at an exact read; returns its time (ns since the epoch)."""
    def end(self, status: str = "complete") -> int:
        """Ends the open run at an exact edge; returns its id."""
    def result(self, run_id: int) -> tuple[str, str]:
        """(run --json text, study table text) of one run."""
    def window(self, run_id: int, label: str, t0: int, t1: int,
               status: str = "complete") -> tuple[str, str]:
        """(json, text) of [t0, t1] of a run, as a run of its own."""
    def finish(self) -> bool:
        """Ends an open run, stores the summaries and closes the trace."""
    @property
    def path(self) -> str: ...
    @property
    def closed(self) -> bool: ...

class TraceFile:
    """A jouleprof trace opened for reading."""

    def __init__(self, path: str) -> None: ...
    def info(self) -> dict[str, Any]:
        """path, version, meta, channels and runs as plain Python data."""
    def markers(self, run_id: int) -> list[tuple[int, str, str]]: ...
    def samples(self, run_id: int, channel: int) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.uint8]]: ...
    def html(self, run_id: int) -> str: ...
    def window_html(self, run_id: int, label: str, t0: int, t1: int) -> str: ...
    def report_json(self) -> str: ...

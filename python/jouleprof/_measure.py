# SPDX-License-Identifier: BSD-3-Clause
"""Measuring from inside Python: measure(), phase(), mark() and Monitor.

One run is open at a time in the process (the node is one node): the first
``measure`` block or a started ``Monitor`` opens it; blocks inside it are
measured as phases of it, with exact reads at their edges. The sampler runs
in C++ threads; no Python code runs while it samples.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import math
import os
import sys
import threading
from typing import Any, Callable, Optional, TypeVar, Union

from . import _core
from ._result import Result

F = TypeVar("F", bound=Callable[..., Any])

_lock = threading.RLock()
# $JOULEPROF_CONFIG: the config file when configure() names none (the CLI's -c).
_options: dict[str, Any] = {"output": "", "interval": 0.5, "sysfs_root": "",
                            "config": os.environ.get("JOULEPROF_CONFIG", "")}
_default: Optional[_core.Session] = None


class _Run:
    """The open run: its session, id, and whether the session is its own."""

    def __init__(self, session: _core.Session, run_id: int, owned: bool) -> None:
        self.session = session
        self.run_id = run_id
        self.owned = owned


_active: Optional[_Run] = None


def _command() -> str:
    return " ".join(["python", *sys.argv]) if sys.argv and sys.argv[0] else "python"


Duration = Union[float, str]


def _seconds(value: Duration, name: str = "interval") -> float:
    """A sampling interval as seconds: a number of seconds or the CLI's '100ms', '2s'.

    Bad values are refused with the CLI's words, naming the Python argument.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"{name} must be a number of seconds or a duration such as '100ms', "
                        f"not {type(value).__name__}")
    if isinstance(value, str):
        try:
            seconds = float(value)  # a bare number is seconds, as configure(interval=0.1)
        except ValueError:
            try:
                seconds = _core.parse_duration(value.strip())
            except ValueError as e:
                raise ValueError(f"{name}: {e}") from None
    else:
        seconds = float(value)
    if not math.isfinite(seconds):
        raise ValueError(f"{name}: must be a finite number of seconds, not {value!r}")
    if seconds < 0.001:
        raise ValueError(f"{name}: must be at least 1ms (got {value!r})")
    if seconds > 1e9:  # the CLI's limit: 1e18 ns
        raise ValueError(f"{name}: too long (got {value!r})")
    return seconds


def configure(output: Optional[str] = None, interval: Optional[Duration] = None,
              sysfs_root: Optional[str] = None, config: Optional[str] = None) -> None:
    """Options of the process's default trace, before its first measurement.

    output: the trace file (default a new ``jouleprof-<time>-<pid>.jptrace`` in the
    trace directory: ``$JOULEPROF_TRACE_DIR``, else ``$XDG_STATE_HOME/jouleprof/traces``,
    else ``~/.local/state/jouleprof/traces``; a directory: a new file there);
    interval: sampling interval, seconds or a duration as the CLI takes it
    (``"100ms"``; default 0.5 s); sysfs_root: where
    sensors are read (default ``$JOULEPROF_SYSFS_ROOT`` or ``/``); config: a
    jouleprof TOML config file.
    """
    with _lock:
        if _default is not None:
            raise RuntimeError("configure() must come before the first measurement")
        for key, value in (("output", output), ("interval", interval),
                           ("sysfs_root", sysfs_root), ("config", config)):
            if value is not None:
                _options[key] = os.fspath(value) if key != "interval" else _seconds(value)


def _new_session(output: str, interval: Optional[float]) -> _core.Session:
    return _core.Session(output=output,
                         interval=_options["interval"] if interval is None else interval,
                         command=_command(), sysfs_root=_options["sysfs_root"],
                         config=_options["config"])


def _default_session() -> _core.Session:
    global _default
    if _default is None:
        _default = _new_session(_options["output"], None)
        atexit.register(close)
    return _default


def close() -> Optional[str]:
    """Finishes the process's default trace (stores its summaries); returns its path.

    Called at exit; later measurements start a new trace.
    """
    global _default
    with _lock:
        if _default is None:
            return None
        path = _default.path
        _default.finish()
        _default = None
        return path


def trace_path() -> Optional[str]:
    """The trace of the open run, else of the process's default trace, if any."""
    with _lock:
        if _active is not None:
            return _active.session.path
        return None if _default is None else _default.path


def _status(exc_type: Optional[type]) -> str:
    if exc_type is None:
        return "complete"
    return "interrupted" if issubclass(exc_type, KeyboardInterrupt) else "failed"


def _html_of(path: str, run_id: int) -> Callable[[], str]:
    return lambda: _core.TraceFile(path).html(run_id)


def _window_html_of(path: str, run_id: int, label: str, t0: int, t1: int) -> Callable[[], str]:
    return lambda: _core.TraceFile(path).window_html(run_id, label, t0, t1)


class measure(contextlib.ContextDecorator):
    """Measure a block or a function: node energy, power, every part, phases.

    ``with jouleprof.measure("train") as m: ...`` then ``m.result``;
    ``@jouleprof.measure()`` on a function measures each call (the label is
    the function's name; ``fn.results`` keeps every call's result). Outside
    any run the block is a run of its own in the process's trace (or in
    ``output`` when given); inside a run (a Monitor, an enclosing block) it is
    measured as a phase of that run, with exact reads at its edges.
    An exception in the block is not swallowed; the result says ``failed``.
    """

    def __init__(self, label: Optional[str] = None, *, output: Optional[str] = None,
                 interval: Optional[Duration] = None) -> None:
        self.label = label
        self.output = None if output is None else os.fspath(output)
        self.interval = None if interval is None else _seconds(interval)
        self.result: Optional[Result] = None
        self._run: Optional[_Run] = None
        self._t0 = 0
        self._nested = False

    def __call__(self, func: F) -> F:  # type: ignore[override]
        label = self.label or getattr(func, "__qualname__", "function")
        results: list[Result] = []

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            m = measure(label, output=self.output, interval=self.interval)
            try:
                with m:
                    return func(*args, **kwargs)
            finally:
                if m.result is not None:
                    results.append(m.result)

        wrapper.results = results  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    def __enter__(self) -> "measure":
        global _active
        label = self.label or "python"
        with _lock:
            if _active is not None:
                self._nested = True
                self._run = _active
                self._t0 = _active.session.mark("begin", label)
                return self
            owned = self.output is not None or self.interval is not None
            session = (_new_session(self.output or "", self.interval) if owned
                       else _default_session())
            run_id = session.begin(label, _command())
            self._run = _Run(session, run_id, owned)
            _active = self._run
        return self

    def __exit__(self, exc_type: Optional[type], exc: Any, tb: Any) -> bool:
        global _active
        label = self.label or "python"
        status = _status(exc_type)
        run = self._run
        assert run is not None, "measure.__exit__ without __enter__"
        with _lock:
            if self._nested:
                t1 = run.session.mark("end", label)
                data, text = run.session.window(run.run_id, label, self._t0, t1, status)
                self.result = Result(data, text, _window_html_of(run.session.path, run.run_id,
                                                                 label, self._t0, t1))
                return False
            run.session.end(status)
            _active = None
            data, text = run.session.result(run.run_id)
            path = run.session.path
            if run.owned:
                run.session.finish()
        self.result = Result(data, text, _html_of(path, run.run_id))
        return False

    def __str__(self) -> str:
        return str(self.result) if self.result else f"<jouleprof.measure {self.label!r}: running>"

    def _repr_html_(self) -> Optional[str]:
        return self.result._repr_html_() if self.result else None


class phase(contextlib.ContextDecorator):
    """A phase of the open run: ``with jouleprof.phase("epoch 3"): ...``.

    Stored as begin/end markers (read at exact edges), summarised in the
    run's ``phases``. Outside any run it does nothing.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._run: Optional[_Run] = None

    def __enter__(self) -> "phase":
        with _lock:
            self._run = _active
            if self._run is not None:
                self._run.session.mark("begin", self.name)
        return self

    def __exit__(self, exc_type: Optional[type], exc: Any, tb: Any) -> bool:
        with _lock:
            if self._run is not None and self._run is _active:
                self._run.session.mark("end", self.name)
        return False


def mark(name: str) -> bool:
    """A point marker in the open run; False (nothing done) outside any run."""
    with _lock:
        if _active is None:
            return False
        _active.session.mark("point", name)
        return True


def active() -> bool:
    """True while a run is open (a measure block or a started Monitor)."""
    return _active is not None


class Monitor:
    """A long measurement with explicit start() and stop(), e.g. a notebook session.

    Writes its own trace (``output``, default a new file in the trace directory). While it
    runs, measure() blocks and phase()s are measured inside it.
    """

    def __init__(self, label: str = "session", *, output: Optional[str] = None,
                 interval: Optional[Duration] = None) -> None:
        self.label = label
        self.output = "" if output is None else os.fspath(output)
        self.interval = None if interval is None else _seconds(interval)
        self.result: Optional[Result] = None
        self._run: Optional[_Run] = None

    @property
    def running(self) -> bool:
        """True between start() and stop()."""
        return self._run is not None

    @property
    def trace(self) -> Optional[str]:
        """The trace file (once started)."""
        return None if self._run is None else self._run.session.path

    def start(self) -> "Monitor":
        """Begins the run; RuntimeError when another run is open."""
        global _active
        with _lock:
            if _active is not None:
                raise RuntimeError("a measurement is already running in this process")
            session = _new_session(self.output, self.interval)
            run_id = session.begin(self.label, _command())
            self._run = _Run(session, run_id, True)
            _active = self._run
        return self

    def mark(self, kind: str, name: str) -> int:
        """A begin/end/point marker in this run; returns its time (ns since the trace epoch)."""
        if self._run is None:
            raise RuntimeError("the monitor is not running")
        with _lock:
            return self._run.session.mark(kind, name)

    def snapshot(self) -> Result:
        """The figures so far, without stopping."""
        if self._run is None:
            raise RuntimeError("the monitor is not running")
        with _lock:
            data, text = self._run.session.result(self._run.run_id)
        return Result(data, text)

    def stop(self, status: str = "complete") -> Result:
        """Ends the run, finishes the trace and returns the result."""
        global _active
        with _lock:
            run = self._run
            if run is None:
                raise RuntimeError("the monitor is not running")
            run.session.end(status)
            data, text = run.session.result(run.run_id)
            path = run.session.path
            run.session.finish()
            self._run = None
            if _active is run:
                _active = None
        self.result = Result(data, text, _html_of(path, run.run_id))
        return self.result

    def __enter__(self) -> "Monitor":
        return self.start()

    def __exit__(self, exc_type: Optional[type], exc: Any, tb: Any) -> bool:
        self.stop(_status(exc_type))
        return False

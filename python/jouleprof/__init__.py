# SPDX-License-Identifier: BSD-3-Clause
"""jouleprof: measure the energy of Python code, notebooks and jobs; read traces.

    import jouleprof
    with jouleprof.measure("train") as m:
        with jouleprof.phase("epoch 1"):
            ...
    print(m.result)                      # the study's table
    m.result.to_dict()                   # as in `jouleprof run --json`
    jouleprof.Trace(m.result.trace).samples()   # a pandas DataFrame

In Jupyter: ``%load_ext jouleprof``, then ``%%jouleprof`` on a cell, or
``%jouleprof start`` … ``%jouleprof stop`` for the whole session.
Sensors are found as ``jouleprof run`` finds them ($JOULEPROF_SYSFS_ROOT,
jouleprofd where it runs). See docs/python.md.
"""
from ._core import TraceError, __commit__, __version__
from ._magics import load_ipython_extension, unload_ipython_extension
from ._measure import Monitor, active, close, configure, mark, measure, phase, trace_path
from ._result import Result
from ._trace import Trace

__all__ = ["__version__", "Monitor", "Result", "Trace", "TraceError", "active", "close", "configure",
           "load_ipython_extension", "mark", "measure", "phase", "trace_path",
           "unload_ipython_extension"]

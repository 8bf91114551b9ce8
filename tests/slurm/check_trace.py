# SPDX-License-Identifier: BSD-3-Clause
"""Checks one node's trace written by the SPANK plugin against the known profile.

  check_trace.py JOULEPROF TRACE ROOT STATUS TASKS
Prints one line per problem (nothing when the trace is right) and a last line
"energy MEASURED J, profile TRUTH J, DELTA %" when the run could be read. The energy
must match within max(0.5 %, the writer's slack: power_profile.py slack ROOT).
"""
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
jp, trace, root, status, tasks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
meta = dict(db.execute("SELECT key, value FROM meta"))
runs = db.execute("SELECT start_ns, end_ns, status, kind FROM run").fetchall()
problems = []
if len(runs) != 1:
    problems.append(f"{len(runs)} runs, expected 1")
start_ns, end_ns, got_status, kind = runs[0]
if got_status != status or kind != "measure" or end_ns is None:
    problems.append(f"run status {got_status} kind {kind} end {end_ns}, expected {status}, measure, closed")
pids = meta.get("slurm.task_pids", "")
if len([p for p in pids.split(",") if p]) != tasks:
    problems.append(f"slurm.task_pids '{pids}', expected {tasks} rank:pid")
for key in ("slurm.job_id", "slurm.step", "slurm.node"):
    if not meta.get(key):
        problems.append(f"no meta {key}")
report = json.loads(subprocess.run([jp, "report", "--json", trace], check=True,
                                   capture_output=True, text=True).stdout)
run = report["groups"][0]["runs"][0]
package = [p for p in run["parts"] if p["domain"] == "cpu_package"]
if len(package) != 1:
    problems.append(f"package parts: {[p['name'] for p in run['parts']]}")
else:
    epoch = int(meta["epoch_mono_ns"])
    truth = float(subprocess.run([sys.executable, str(HERE / "power_profile.py"), "joules", root,
                                  str(epoch + start_ns), str(epoch + end_ns)],
                                 check=True, capture_output=True, text=True).stdout)
    slack = float(subprocess.run([sys.executable, str(HERE / "power_profile.py"), "slack", root],
                                 check=True, capture_output=True, text=True).stdout)
    allowed = max(0.005 * truth, slack)  # the writer's own lag bounds what can be asserted
    got = package[0]["energy_j"]
    delta = 100 * (got - truth) / truth
    if abs(got - truth) > allowed:
        problems.append(f"package {got:.2f} J, the profile gives {truth:.2f} J ({delta:+.3f} %, "
                        f"allowed ±{allowed:.2f} J)")
    print("\n".join(problems + [f"energy {got:.2f} J, profile {truth:.2f} J, {delta:+.3f} % "
                                f"(allowed ±{allowed:.2f} J) over {(end_ns - start_ns) * 1e-9:.2f} s"]))
    sys.exit(0)
print("\n".join(problems))

# SPDX-License-Identifier: BSD-3-Clause
"""Checks the merged result of a multi-node step against each node's known profile.

  check_job.py JOULEPROF STEPDIR NODE=ROOT... [--status S] [--partial yes|no]
               [--straggler NODE] [--phase NAME] [--nodes N]
Runs `jouleprof report --json STEPDIR`; the truth of each node is the energy of
its profile (power_profile.py, ROOT) between the edges its trace recorded; the
merged energy must be their sum within max(0.5 %, the writers' slack:
power_profile.py slack ROOT, summed over the nodes). Prints one line per problem
(nothing when right) and a last line "job MEASURED J, profiles TRUTH J, DELTA %".
Without --straggler, a straggler the report names must be one by the nodes' recorded edges
(a loaded machine can start a node's tasks late); with it, that node must be named.
"""
import argparse
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ap = argparse.ArgumentParser()
ap.add_argument("jp")
ap.add_argument("stepdir")
ap.add_argument("roots", nargs="+")
ap.add_argument("--status", default="complete")
ap.add_argument("--partial", default="no")
ap.add_argument("--straggler")
ap.add_argument("--phase")
ap.add_argument("--nodes", type=int)
a = ap.parse_args()
roots = dict(r.split("=", 1) for r in a.roots)

out = subprocess.run([a.jp, "report", "--json", "--no-sacct", a.stepdir], check=True,
                     capture_output=True, text=True).stdout
job = json.loads(out)["steps"][0]
problems = []
if job["status"] != a.status:
    problems.append(f"status {job['status']}, expected {a.status}")
if job["partial"] != (a.partial == "yes"):
    problems.append(f"partial {job['partial']}, expected {a.partial}")
if a.nodes is not None and len(job["nodes"]) != a.nodes:
    problems.append(f"{len(job['nodes'])} nodes, expected {a.nodes}")

truth = 0.0
slack = 0.0
for node in job["nodes"]:
    name = node["node"]
    if name not in roots:
        problems.append(f"node {name} is not one of {sorted(roots)}")
        continue
    db = sqlite3.connect(f"file:{node['trace']}?mode=ro", uri=True)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    start_ns, end_ns = db.execute("SELECT start_ns, end_ns FROM run WHERE kind = 'measure'").fetchone()
    if end_ns is None:  # the monitor died: its figures end at its last sample
        end_ns = int(round(node["end_s"] * 1e9 - node["start_s"] * 1e9)) + start_ns
    epoch = int(meta["epoch_mono_ns"])
    truth += float(subprocess.run([sys.executable, str(HERE / "power_profile.py"), "joules",
                                   roots[name], str(epoch + start_ns), str(epoch + end_ns)],
                                  check=True, capture_output=True, text=True).stdout)
    slack += float(subprocess.run([sys.executable, str(HERE / "power_profile.py"), "slack",
                                   roots[name]], check=True, capture_output=True, text=True).stdout)
    if node["clock"]["error_s"] is None or node["clock"]["error_s"] > 0.05:
        problems.append(f"{name}: clock offset not measured within 50 ms: {node['clock']}")
got = job["energy_j"]
delta = 100 * (got - truth) / truth if truth else float("inf")
allowed = max(0.005 * truth, slack)  # the writers' own lag bounds what can be asserted
if not truth or abs(got - truth) > allowed:
    problems.append(f"job energy {got:.2f} J, the profiles give {truth:.2f} J ({delta:+.3f} %, "
                    f"allowed ±{allowed:.2f} J)")
if a.straggler and a.straggler not in [s["node"] for s in job["stragglers"] if s["edge"] == "end"]:
    problems.append(f"{a.straggler} is not named a straggler: {job['stragglers']}")
if not a.straggler:
    # None expected, but a loaded machine may start or end one node's tasks late: a straggler
    # named then must be one by the nodes' own recorded edges (late by at least the rule's
    # 1 s after the lower-median node, by as much as its edge says).
    edges = {e: sorted(n[f"{e}_s"] for n in job["nodes"]) for e in ("start", "end")}
    for s in job["stragglers"]:
        mine = [n[f"{s['edge']}_s"] for n in job["nodes"] if n["node"] == s["node"]]
        median = edges[s["edge"]][(len(job["nodes"]) - 1) // 2]
        if len(mine) != 1 or s["late_s"] < 1.0 or abs(mine[0] - median - s["late_s"]) > 1e-3:
            problems.append(f"straggler named against the nodes' edges: {s}, {edges}")
if a.phase:
    phases = {p["name"]: p for p in job["phases"]}
    p = phases.get(a.phase)
    if p is None or p["nodes"] != len(job["nodes"]) or p["energy_j"] <= 0:
        problems.append(f"phase {a.phase} not marked on every node: {list(phases.values())}")
print("\n".join(problems + [f"job {got:.2f} J, profiles {truth:.2f} J, {delta:+.3f} % "
                            f"(allowed ±{allowed:.2f} J) "
                            f"over {job['runtime_s']:.2f} s on {len(job['nodes'])} nodes"]))

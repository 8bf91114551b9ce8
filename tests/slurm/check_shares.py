# SPDX-License-Identifier: BSD-3-Clause
"""Checks two steps that shared one node (spank_test.sh, section 7).

  check_shares.py JOULEPROF BUSY_DIR IDLE_DIR [cgroup]

Each DIR is a step's directory of node traces. With `cgroup`, each step must have
been followed through its Slurm cgroup (Slurm's cgroup plugins), else through
slurmstepd's process tree. Prints one line per failed check
and the figures; exits 0 when every check held.
"""
import json
import subprocess
import sys


def merged(jp: str, d: str) -> dict:
    out = subprocess.run([jp, "-q", "report", "--json", d], check=True,
                         capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["steps"][0]


def main() -> int:
    jp, busy_dir, idle_dir = sys.argv[1:4]
    by_cgroup = sys.argv[4:5] == ["cgroup"]
    bad = []
    steps = {}
    for name, d in (("busy", busy_dir), ("idle", idle_dir)):
        try:
            j = merged(jp, d)
        except (OSError, subprocess.CalledProcessError, ValueError, KeyError, IndexError) as e:
            bad.append(f"{name}: no merged result from {d}: {e}")
            continue
        a = j.get("attribution")
        if not a:
            bad.append(f"{name}: no attribution in the merged result")
            continue
        node = j["nodes"][0]["attribution"]
        steps[name] = (a, node)
        total = a["idle_j"] + a["dynamic_j"] + a["unallocated_j"] + a["other_j"]
        if abs(total - a["node_j"]) > 1e-3:
            bad.append(f"{name}: shares add to {total} J, the node drew {a['node_j']} J")
        if a["exclusive"]:
            bad.append(f"{name}: called exclusive on a shared node")
        if by_cgroup:
            job = j["job_id"]
            method = node["job_cpu"]
            if not method.startswith(f"Slurm job {job}'s cgroup ") or "/step_" not in method:
                bad.append(f"{name}: followed by {method!r}, not its step's group in job {job}")
        elif not node["job_cpu"].startswith("process tree of pid"):
            bad.append(f"{name}: followed by {node['job_cpu']!r}, not slurmstepd's tree")
        if node["given_cpus"] != 1:
            bad.append(f"{name}: given {node['given_cpus']} CPUs, Slurm gave it 1")
        print(f"   {name}: share {a['job_j']:.1f} J of the node's {a['node_j']:.1f} J, "
              f"CPU {node['job_cpu_s']:.2f} s")
    if len(steps) == 2:
        (busy, busy_node), (idle, idle_node) = steps["busy"], steps["idle"]
        if busy_node["job_cpu_s"] < 1.0:
            bad.append(f"busy: {busy_node['job_cpu_s']} s of CPU, its loop ran 2 s")
        if idle_node["job_cpu_s"] > 0.3:
            bad.append(f"idle: {idle_node['job_cpu_s']} s of CPU for a sleep")
        if busy["dynamic_j"] <= 3 * idle["dynamic_j"]:
            bad.append(f"busy's dynamic {busy['dynamic_j']} J is not well above idle's "
                       f"{idle['dynamic_j']} J")
    for b in bad:
        print("FAILED:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

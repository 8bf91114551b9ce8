#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# jouleprof reads Slurm's own node energy from a real Slurm (22.05, Debian)
# whose rapl energy plugin reads a stand-in MSR at 80 W: the node's power
# through scontrol and, inside a job step, the step's energy through sstat,
# which is what sacct bills. Runs in its own network and mount namespace.
# Usage: slurm_energy_test.sh JOULEPROF   (exit 77: skipped, with the reason)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
JP=$1
WATTS=80

if [[ ${2:-} != --inner ]]; then
    for tool in slurmctld slurmd scontrol srun sstat munged mungekey unshare ip python3; do
        command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
    done
    [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (namespaces, slurmd)"; exit 77; }
    [[ -d /dev/cpu ]] || { echo "SKIP: no /dev/cpu to mount the stand-in MSR over"; exit 77; }
    exec unshare --net --mount --propagation private -- bash "$0" "$JP" --inner
fi

ip link set lo up
# Slurm asks getaddrinfo for IPv4 with AI_ADDRCONFIG, which ignores 127/8: give the
# namespace's loopback one more address (TEST-NET-1, reachable from nowhere).
ip addr add 192.0.2.1/32 dev lo
dir=$(mktemp -d /tmp/jp-slurm.XXXXXX)
# slurmd logs each CurrentWatts its plugin computes: what scontrol can show.
printf 'DebugFlags=Energy\nSlurmdDebug=verbose\n' > "$dir/slurm.extra.conf"
cleanup() {
    bash "$HERE/slurm_node.sh" stop "$dir" || true
    rm -rf "$dir"
}
trap cleanup EXIT
bash "$HERE/slurm_node.sh" start "$dir" "$WATTS"
export SLURM_CONF=$dir/slurm.conf
source "$HERE/checks.sh"

cat > "$dir/jp.toml" <<TOML
[sensors.slurm]
node = "localhost"
TOML

# 1. Outside a job: the node's power, as scontrol shows it.
sensors=$("$JP" --config "$dir/jp.toml" sensors 2>&1)
echo "$sensors" | grep -i slurm || true
check "sensors lists slurm.node from scontrol" \
    grep -q "slurm:scontrol node localhost (acct_gather_energy/rapl)" <<<"$sensors"

# 2. A wrong node name: one line that says what fixes it.
printf '[sensors.slurm]\nnode = "nosuchnode"\n' > "$dir/bad.toml"
bad=$("$JP" --config "$dir/bad.toml" sensors 2>&1)
echo "$bad" | grep -A1 "UNREADABLE slurm" || true
check "a wrong node name is one line" grep -q "UNREADABLE slurm Slurm node nosuchnode: .*not found" <<<"$bad"
check "... with what fixes it" grep -q "fix: set \[sensors.slurm\] node = the node's Slurm name" <<<"$bad"

# 3. Inside a job step: the step's energy from sstat beside the node's power.
srun -N1 -t 2 "$JP" --config "$dir/jp.toml" -q run --no-live --json -o "$dir/job.jptrace" \
    -- sleep 6 > "$dir/run.json" 2> "$dir/run.err" || { cat "$dir/run.err"; exit 1; }
"$JP" export -f json -o "$dir/job.json" "$dir/job.jptrace"
# Slurm's figures come in the run's summary beside jouleprof's, not summed into the node.
verdict=$(python3 - "$dir/run.json" "$WATTS" "$dir/job.json" "$dir/slurmd.log" <<'PY'
import json, re, sys
run = json.load(open(sys.argv[1]))["groups"][0]["runs"][0]
watts = float(sys.argv[2])
read = json.load(open(sys.argv[3]))["runs"][0]["samples"].get("slurm.node", {}).get("value", [])
# slurmd's own polls (a step's lines carry "[JOB.STEP]" after the time).
polled = {float(m.group(1)) for m in re.finditer(
    r"^\[[^]]*\] (?!\[)acct_gather_energy/rapl: .*CurrentWatts = (\d+)W",
    open(sys.argv[4]).read(), re.M)}
seen = {c["name"]: c for c in run["not_summed"]}
problems = []
node, step = seen.get("slurm.node"), seen.get("slurm.step")
if node is None or step is None:
    problems.append(f"slurm.node and slurm.step expected, got {sorted(seen)}")
else:
    runtime = run["runtime_s"]
    # Slurm's CurrentWatts is whole joules over whole seconds of time(NULL), so it
    # strays from the MSR's 80 W when slurmd's poll is late (a loaded machine):
    # each value jouleprof read must be one slurmd computed, and the mean theirs.
    if len(read) < 3 or not polled:
        problems.append(f"{len(read)} slurm.node readings, {len(polled)} CurrentWatts in slurmd.log")
    elif not set(read) <= polled:
        problems.append(f"slurm.node read {sorted(set(read) - polled)} W, slurmd computed only {sorted(polled)}")
    elif not min(read) - 1e-9 <= node["avg_w"] <= max(read) + 1e-9:
        problems.append(f"slurm.node averages {node['avg_w']:.1f} W outside its readings {read}")
    # sstat's figure moves once a second (JobAcctGatherFrequency=energy=1): each
    # edge may lag by up to that period.
    truth = watts * runtime
    if abs(step["energy_j"] - truth) > 1.5 * watts:
        problems.append(f"slurm.step {step['energy_j']:.0f} J, {watts} W x {runtime:.2f} s = {truth:.0f} J")
    for c in (node, step):
        if c["counted"] or c["provenance"] != "measured":
            problems.append(f"{c['name']}: counted={c['counted']} provenance={c['provenance']}")
    print(f"slurm.node {node['avg_w']:.1f} W (read {read}), slurm.step {step['energy_j']:.0f} J over {runtime:.2f} s "
          f"(truth {truth:.0f} J)")
print("\n".join(problems) if problems else "ok")
PY
)
echo "$verdict"
check "the step's energy and the node's power are Slurm's" test "$(tail -n 1 <<<"$verdict")" = ok

finish_checks

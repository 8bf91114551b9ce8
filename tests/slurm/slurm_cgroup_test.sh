#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two jobs sharing one node of a real Slurm that runs its own cgroup plugins (cgroup/v1:
# proctrack/cgroup, task/cgroup binding each step to its core, jobacct_gather/cgroup), as
# sites with shared nodes run it: each `srun --jouleprof` step is followed through the
# cgroup Slurm made for it (not slurmstepd's process tree), given the core its cpuset
# holds, and the merged results are each job's own share, adding up to the node.
# Usage: slurm_cgroup_test.sh JOULEPROF SPANK_SO   (exit 77: skipped, with the reason)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
JP=$(realpath "$1") SO=$(realpath "$2")

if [[ ${3:-} != --inner ]]; then
    for tool in slurmctld slurmd srun munged mungekey unshare ip python3 useradd userdel runuser; do
        command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
    done
    [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (namespaces, slurmd, a test user)"; exit 77; }
    [[ -d /dev/cpu ]] || { echo "SKIP: no /dev/cpu for slurm_node.sh's stand-in MSR"; exit 77; }
    # Slurm 22.05's cgroup/v1 needs the v1 hierarchies (a hybrid or legacy machine).
    for c in cpuset cpuacct freezer; do
        [[ -f /sys/fs/cgroup/$c/cgroup.procs ]] ||
            { echo "SKIP: no cgroup v1 $c hierarchy at /sys/fs/cgroup/$c"; exit 77; }
    done
    for plugin in proctrack_cgroup task_cgroup jobacct_gather_cgroup cgroup_v1; do
        compgen -G "/usr/lib*/*/slurm-wlm/$plugin.so" >/dev/null ||
            compgen -G "/usr/lib*/slurm/$plugin.so" >/dev/null ||
            { echo "SKIP: Slurm's $plugin plugin is not installed"; exit 77; }
    done
    (($(nproc) >= 2)) || { echo "SKIP: needs two CPUs"; exit 77; }
    [[ -f $SO ]] || { echo "SKIP: $SO was not built (no slurm/spank.h)"; exit 77; }
    exec unshare --net --mount --propagation private -- bash "$0" "$JP" "$SO" --inner
fi

source "$HERE/spank_node.sh" slcg
echo "optional $SO jouleprof=$JP sysfs_root=$node config=$node/config.toml" > "$dir/plugstack.conf"
echo "PlugStackConfig=$dir/plugstack.conf" > "$dir/slurm.extra.conf"
touch "$dir/cgroup"
bash "$HERE/slurm_node.sh" start "$dir" 80
export SLURM_CONF=$dir/slurm.conf
# Each step prints its task's groups and slurmstepd's (its parent), for the log.
step_cmd='echo "STEP $SLURM_JOB_ID.$SLURM_STEP_ID"; sed "s/^/task /" /proc/self/cgroup;
    sed "s/^/slurmstepd /" /proc/$PPID/cgroup; sleep'

# One CPU each of the node's two: a busy loop beside a sleep (spank_node.sh).
two_jobs
sed 's/^/   busy | /' "$dir/f.out"
sed 's/^/   idle | /' "$dir/g.out"
check "the steps ran in Slurm's cgroups" grep -q "^task .*cpuacct:/slurm_localhost/uid_.*/job_${busy_step%.*}/step_0" "$dir/f.out"
out=$(python3 "$HERE/check_shares.py" "$JP" "$work/jouleprof/$busy_step" "$work/jouleprof/$idle_step" cgroup 2>&1) && shares_rc=0 || shares_rc=$?
echo "$out"
check "two jobs in Slurm's cgroups on one node: each its own share, adding up to the node" \
    test "$shares_rc" = 0
finish_checks

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin in a real Slurm (slurm_node.sh, in the test's own network
# and mount namespace): an unprivileged user's `srun/sbatch --jouleprof` jobs
# on a fake powercap package driven by a known power profile get one trace per
# node, owned by the user, in a 0700 directory, with the profile's energy;
# failed and cancelled jobs keep theirs; bad setups cost the job nothing.
# Usage: spank_test.sh JOULEPROF SPANK_SO   (exit 77: skipped, with the reason)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
JP=$(realpath "$1") SO=$(realpath "$2")

if [[ ${3:-} != --inner ]]; then
    for tool in slurmctld slurmd srun sbatch scancel munged mungekey unshare ip python3 \
        useradd userdel runuser nm; do
        command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
    done
    [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (namespaces, slurmd, a test user)"; exit 77; }
    [[ -d /dev/cpu ]] || { echo "SKIP: no /dev/cpu for slurm_node.sh's stand-in MSR"; exit 77; }
    [[ -f $SO ]] || { echo "SKIP: $SO was not built (no slurm/spank.h)"; exit 77; }
    exec unshare --net --mount --propagation private -- bash "$0" "$JP" "$SO" --inner
fi

source "$HERE/spank_node.sh" spank

# The exported symbols Slurm looks up (extern "C", default visibility).
syms=$(nm -D --defined-only "$SO")
for s in plugin_name plugin_type plugin_version spank_plugin_version slurm_spank_init \
    slurm_spank_init_post_opt slurm_spank_local_user_init slurm_spank_user_init \
    slurm_spank_task_post_fork slurm_spank_task_exit \
    slurm_spank_exit; do
    check "nm -D shows $s" grep -qw "$s" <<<"$syms"
done
check "libslurm is not linked" bash -c "! ldd '$SO' | grep -q libslurm"

mkdir -p "$dir/ro" "$dir/empty"
chmod 0755 "$dir/ro"
plug() { # plug ARGS...: the plugstack.conf each step reads
    echo "optional $SO jouleprof=$JP sysfs_root=$node config=$node/config.toml $*" > "$dir/plugstack.conf"
}
plug
echo "PlugStackConfig=$dir/plugstack.conf" > "$dir/slurm.extra.conf"
accounting=no # sacct's ConsumedEnergyRaw beside jouleprof's needs MariaDB and slurmdbd
if command -v mariadbd >/dev/null && command -v slurmdbd >/dev/null && [[ -d /run/mysqld || -d /run ]]; then
    echo "$user" > "$dir/accounting"
    accounting=yes
fi
bash "$HERE/slurm_node.sh" start "$dir" 80
export SLURM_CONF=$dir/slurm.conf
step_cmd='[ "$SLURM_PROCID" = 0 ] && echo "STEP $SLURM_JOB_ID.$SLURM_STEP_ID"; sleep'

# bench/spank_step_cost.sh: what the plugin adds to a step (start edge + trace closed, from
# slurmd's log; srun's wall time), nothing else. Figures, no checks: docs/slurm.md.
if [[ ${JP_SPANK_PART:-checks} == cost ]]; then
    for mode in plain --jouleprof=result=no --jouleprof; do
        opts=()
        [[ $mode != plain ]] && opts=("$mode")
        t0=$(date +%s%N)
        for _ in 1 2 3 4 5; do
            as_user srun "${opts[@]}" -n 2 true >/dev/null 2>&1 || true
        done
        echo "srun -n 2 true, $mode: $(( ($(date +%s%N) - t0) / 5000000 )) ms per step (mean of 5)"
    done
    grep -o "jouleprof: step .*after [0-9]* ms" "$dir/slurmd.log" | tail -n 10
    exit 0
fi

check "srun --help lists --jouleprof" bash -c "runuser -u '$user' -- srun --help | grep -q -- --jouleprof"

# 1. srun -n 2: one trace for the node, the user's, 0700, the profile's energy.
as_user srun --jouleprof=interval=100ms,label=t1 -n 2 bash -c "$step_cmd 3" > "$dir/a.out" 2> "$dir/a.err" ||
    { echo "FAILED: srun --jouleprof -n 2:"; cat "$dir/a.err"; exit 1; }
step=$(ids "$dir/a.out")
trace=$work/jouleprof/$step/localhost.jptrace
check "srun: the trace $trace exists" test -f "$trace"
check "... owned by the user" test "$(stat -c %U "$trace")" = "$user"
check "... in a directory of mode 0700" test "$(stat -c %a "$work/jouleprof/$step")" = 700
check "... another user cannot read it" bash -c "! runuser -u nobody -- ls '$work/jouleprof/$step' 2>/dev/null"
out=$(python3 "$HERE/check_trace.py" "$JP" "$trace" "$node" complete 2 2>&1 || true)
echo "   $out"
check "... a complete run of 2 tasks with the profile's energy (0.5 %)" test "$(wc -l <<<"$out")" = 1
check "... nothing said on the job's stderr" test ! -s "$dir/a.err"
sed 's/^/   | /' "$dir/a.out"
check "... srun printed the step's merged table" grep -q "^Job ${step%.*}, step ${step#*.} (t1): 1 node, complete$" "$dir/a.out"
if [[ $accounting == yes ]]; then
    # Slurm's rapl plugin reads the stand-in MSR at 80 W: its figure, as sacct has it, beside ours.
    slurm_j=$(sacct -n -P --noconvert -j "$step" -o ConsumedEnergyRaw | head -n 1)
    echo "   sacct ConsumedEnergyRaw $step: $slurm_j J"
    check "... with Slurm's energy for the step, as sacct gives it ($slurm_j J)" \
        grep -q "Slurm's energy (sacct ConsumedEnergyRaw, step $step): $slurm_j" "$dir/a.out"
    check "... about 80 W over the step" python3 -c "
import sys; j = float('$slurm_j' or 0); sys.exit(0 if 80 * 2 <= j <= 80 * 6 else 1)"
else
    echo "   (no MariaDB/slurmdbd: sacct's figure not checked)"
fi

# 2. sbatch into a directory that does not exist yet (created).
jobid=$(as_user sbatch --parsable --jouleprof=dir=$work/new/deeper -o "$work/b.out" --wrap "sleep 2")
# The batch step's table, the last thing the job writes, says it is over (squeue can miss
# a running job for a moment).
batch_table="^Job $jobid, batch step (slurm): 1 node, complete$"
poll 60 grep -q "$batch_table" "$work/b.out" || true
trace=$work/new/deeper/$jobid.batch/localhost.jptrace
check "sbatch: the batch step's trace in a created directory" test -f "$trace"
out=$(python3 "$HERE/check_trace.py" "$JP" "$trace" "$node" complete 1 2>&1 || true)
echo "   $out"
check "... a complete run with the profile's energy" test "$(wc -l <<<"$out")" = 1
check "... its merged table at the end of the batch output" \
    grep -q "$batch_table" "$work/b.out"

# 3. A failing job keeps its trace, status failed.
rc=0
as_user srun --jouleprof -n 1 bash -c "$step_cmd 1; exit 3" > "$dir/c.out" 2>/dev/null || rc=$?
check "a failing job's exit status is its own (3)" test "$rc" = 3
out=$(python3 "$HERE/check_trace.py" "$JP" "$work/jouleprof/$(ids "$dir/c.out")/localhost.jptrace" "$node" failed 1 2>&1 || true)
echo "   $out"
check "... its trace says failed, with the profile's energy" test "$(wc -l <<<"$out")" = 1

# 4. A cancelled job keeps its partial trace, status interrupted.
as_user srun --jouleprof -n 1 bash -c "$step_cmd 60" > "$dir/d.out" 2>/dev/null &
srun_pid=$!
for _ in $(seq 100); do [[ -n $(ids "$dir/d.out") ]] && break; sleep 0.1; done
sleep 1
step=$(ids "$dir/d.out")
scancel "${step%.*}"
wait "$srun_pid" || true
out=$(python3 "$HERE/check_trace.py" "$JP" "$work/jouleprof/$step/localhost.jptrace" "$node" interrupted 1 2>&1 || true)
echo "   $out"
check "a cancelled job's trace is closed: interrupted, with the profile's energy" test "$(wc -l <<<"$out")" = 1

# 5. Bad setups: the job runs and succeeds, one line on its stderr says why.
bad() { # bad WHAT EXPECTED-TEXT PLUGIN-ARGS -- SRUN-OPTION
    local what=$1 expect=$2 rc=0
    plug "$3"
    as_user srun "$4" -n 1 true 2> "$dir/e.err" || rc=$?
    check "$what: the job succeeds" test "$rc" = 0
    check "... one line on its stderr says why" test "$(grep -c "is not measured: .*$expect" "$dir/e.err")" = 1
    sed 's/^/   /' "$dir/e.err"
}
bad "a missing jouleprof binary" "cannot run $dir/nope" "jouleprof=$dir/nope" --jouleprof
bad "an unwritable directory" "cannot create $dir/ro/" "dir=$dir/ro" --jouleprof
bad "no sensor and no jouleprofd" "no energy sensor can be read" "sysfs_root=$dir/empty socket=$dir/none.sock" --jouleprof
bad "a bad --jouleprof option" "unknown option 'colour'" "" --jouleprof=colour=red

# 6. Two jobs share the node (1 CPU each of its 2): each merged result is its own share,
# followed through its slurmstepd's process tree (proctrack/linuxproc), given the 1 CPU
# Slurm counted for it, and the shares add up to the node in each.
plug
two_jobs
out=$(python3 "$HERE/check_shares.py" "$JP" "$work/jouleprof/$busy_step" "$work/jouleprof/$idle_step" 2>&1) && shares_rc=0 || shares_rc=$?
echo "$out"
check "two jobs on one node: each its own share, adding up to the node" test "$shares_rc" = 0
check "... the merged table leads with the step's share" bash -c \
    "'$JP' -q report '$work/jouleprof/$busy_step' | grep -q \"^  Step's share\""

finish_checks

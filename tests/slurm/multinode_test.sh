#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin on a real two-node Slurm (slurm_cluster.sh: one network,
# UTS and mount namespace per slurmd, in the test's own namespace): an
# unprivileged user's `srun --jouleprof -N 2` gets one trace per node and one
# merged result on the job's output whose energy is the sum of the nodes'
# known profiles (0.5 %), with the phases every rank marked, the node that
# ended late named, and a node whose monitor died reported as partial;
# `sbatch --jouleprof` prints the merged table into the batch output; site
# mode measures every step without the option, into a directory only the
# job's owner can read.
# Usage: multinode_test.sh JOULEPROF SPANK_SO   (exit 77: skipped, with the reason)
set -euo pipefail
[[ -n ${JP_TRACE_SH:-} ]] && set -x
HERE="$(cd "$(dirname "$0")" && pwd)"
JP=$(realpath "$1") SO=$(realpath "$2")

if [[ ${3:-} != --inner ]]; then
    for tool in slurmctld slurmd srun sbatch munged mungekey unshare nsenter ip python3 useradd \
        userdel runuser; do
        command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
    done
    [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (namespaces, slurmd, a test user)"; exit 77; }
    [[ -f $SO ]] || { echo "SKIP: $SO was not built (no slurm/spank.h)"; exit 77; }
    exec unshare --net --mount --uts --propagation private -- bash "$0" "$JP" "$SO" --inner
fi

hostname jpctl # slurmctld runs only on the host its SlurmctldHost names
ip link set lo up
mount -t tmpfs -o mode=0755 jp-netns /run/netns 2>/dev/null || mkdir -p /run/netns
dir=$(mktemp -d /tmp/jp-multi.XXXXXX)
user=jpmulti$$
writers=()
cleanup() {
    bash "$HERE/slurm_cluster.sh" stop "$dir" 2 || true
    for w in "${writers[@]}"; do kill "$w" 2>/dev/null && wait "$w" 2>/dev/null; done
    userdel "$user" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
source "$HERE/checks.sh"

useradd -M -N -s /bin/bash "$user"
# Node 1 at the profile, node 2 at 1.5 times it.
for k in 1 2; do
    python3 "$HERE/power_profile.py" write "$dir/node$k" "$(awk "BEGIN{print 1 + ($k - 1) / 2}")" &
    writers+=($!)
done
for k in 1 2; do
    for _ in $(seq 100); do [[ -s $dir/node$k/t0_ns ]] && break; sleep 0.02; done
done
mkdir -p "$dir/node" "$dir/site"
chmod 0711 "$dir/site"
work=$dir/work
mkdir -p "$work"
chown "$user" "$work"
plug() { # plug ARGS...: the plugstack.conf each step reads
    echo "optional $SO jouleprof=$JP sysfs_root=$dir/node config=$dir/node/config.toml $*" \
        > "$dir/plugstack.conf"
}
plug
echo "PlugStackConfig=$dir/plugstack.conf" > "$dir/slurm.extra.conf"
bash "$HERE/slurm_cluster.sh" start "$dir" 2
export SLURM_CONF=$dir/slurm.conf
as_user() { (cd "$work" && runuser -u "$user" -- env PATH="$(dirname "$JP"):$PATH" "$@"); }
roots="jpn1=$dir/node1 jpn2=$dir/node2"

# 1. srun -N 2: every rank marks "compute"; rank 1 (node 2) sleeps 5 s longer than rank 0,
# far past the straggler rule's second even when a loaded machine is slow to start the
# ranks' `jouleprof mark` calls (seen: 0.8 s apart under two busy loops).
rank_cmd='[ "$SLURM_PROCID" = 0 ] && echo "STEP $SLURM_JOB_ID.$SLURM_STEP_ID"
jouleprof mark begin compute; sleep 1; jouleprof mark end compute
sleep $((1 + 5 * SLURM_PROCID))'
as_user srun --jouleprof=interval=100ms -N 2 -n 2 bash -c "$rank_cmd" > "$dir/a.out" 2> "$dir/a.err" ||
    { echo "FAILED: srun --jouleprof -N 2:"; cat "$dir/a.err"; exit 1; }
step=$(ids "$dir/a.out")
sd=$work/jouleprof/$step
check "srun -N 2: a trace per node" test -f "$sd/jpn1.jptrace" -a -f "$sd/jpn2.jptrace"
check "... owned by the user" test "$(stat -c %U "$sd/jpn1.jptrace" "$sd/jpn2.jptrace" | sort -u)" = "$user"
out=$(python3 "$HERE/check_job.py" "$JP" "$sd" $roots --nodes 2 --straggler jpn2 --phase compute 2>&1 || true)
echo "$out" | sed 's/^/   /'
check "... merged: the sum of the nodes' profiles (0.5 %), jpn2 a straggler, compute on both" \
    test "$(wc -l <<<"$out")" = 1
sed 's/^/   | /' "$dir/a.out"
check "... srun printed the merged table on the job's output" \
    grep -q "^Job ${step%.*}, step ${step#*.} (slurm): 2 nodes, complete$" "$dir/a.out"
check "... with both nodes, the straggler and the phase" \
    bash -c "grep -q '^  jpn1 ' '$dir/a.out' && grep -q '^  jpn2 ' '$dir/a.out' &&
             grep -q 'Straggler: jpn2 ended' '$dir/a.out' && grep -q '^  compute  *2/2 ' '$dir/a.out'"
check "... nothing on the job's stderr" test ! -s "$dir/a.err"

# 2. A node whose monitor dies mid-step: reported, as partial.
as_user srun --jouleprof=interval=100ms -N 2 -n 2 bash -c '[ "$SLURM_PROCID" = 0 ] &&
    echo "STEP $SLURM_JOB_ID.$SLURM_STEP_ID"; sleep 3' > "$dir/b.out" 2>/dev/null &
srun_pid=$!
for _ in $(seq 100); do [[ -n $(ids "$dir/b.out") ]] && break; sleep 0.1; done
sleep 1
step=$(ids "$dir/b.out")
pkill -KILL -f "record -o $work/jouleprof/$step/jpn2.jptrace" || true
wait "$srun_pid" || true
out=$(python3 "$HERE/check_job.py" "$JP" "$work/jouleprof/$step" $roots --nodes 2 --partial yes 2>&1 || true)
echo "$out" | sed 's/^/   /'
check "a node's monitor killed: the result is partial, the energy still the profiles' (0.5 %)" \
    test "$(wc -l <<<"$out")" = 1
check "... the table says PARTIAL and which node" \
    bash -c "grep -q 'PARTIAL' '$dir/b.out' && grep -q '^  jpn2 .* no end ' '$dir/b.out'"

# 3. sbatch: the srun step inside prints its merged table into the batch output.
jobid=$(as_user sbatch --parsable --jouleprof -N 2 -o "$work/c.out" --wrap "srun -N 2 -n 2 sleep 1")
# The batch step's table, the last thing the job writes, says it is over (squeue can miss
# a running job for a moment).
batch_table="^Job $jobid, batch step (slurm): 1 node, complete$"
poll 60 grep -q "$batch_table" "$work/c.out" || true
sed 's/^/   | /' "$work/c.out"
check "sbatch -N 2: the step's merged table in the batch output" \
    grep -q "^Job $jobid, step 0 (slurm): 2 nodes, complete$" "$work/c.out"
check "... and the batch step's own, after it" \
    grep -q "$batch_table" "$work/c.out"
grep -h "jouleprof: step $jobid.batch" "$dir"/slurmd.jpn*.log | sed 's/^/   slurmd: /'
out=$(python3 "$HERE/check_job.py" "$JP" "$work/jouleprof/$jobid.0" $roots --nodes 2 2>&1 || true)
echo "$out" | sed 's/^/   /'
check "... its energy is the profiles' (0.5 %)" test "$(wc -l <<<"$out")" = 1

# 4. Site mode: every step measured without the option, into <site_dir>/<jobid>/, 0700.
# The batch job before may still be completing (a loaded machine): srun would then say it
# queued the step, on stderr, which must hold only what jouleprof prints.
poll 60 bash -c '[ -z "$(squeue -h)" ]' || true
plug "site=yes site_dir=$dir/site"
as_user srun -N 2 -n 2 bash -c '[ "$SLURM_PROCID" = 0 ] && echo "STEP $SLURM_JOB_ID.$SLURM_STEP_ID"; sleep 1' \
    > "$dir/d.out" 2> "$dir/d.err"
step=$(ids "$dir/d.out")
sed 's/^/   stderr: /' "$dir/d.err"
jd=$dir/site/${step%.*}
check "site mode: both nodes' traces without --jouleprof" test -f "$jd/$step/jpn1.jptrace" -a -f "$jd/$step/jpn2.jptrace"
check "... the job's directory is the user's, mode 0700" test "$(stat -c '%U %a' "$jd")" = "$user 700"
check "... another user cannot read it" bash -c "! runuser -u nobody -- ls '$jd' 2>/dev/null"
check "... no table printed unasked, nothing on stderr but srun's own queue lines" bash -c \
    "! grep -q '^Job ' '$dir/d.out' && ! grep -Ev '^srun: job [0-9]+ (queued and waiting for resources|has been allocated resources)$' '$dir/d.err'"
out=$(python3 "$HERE/check_job.py" "$JP" "$jd/$step" $roots --nodes 2 2>&1 || true)
echo "$out" | sed 's/^/   /'
check "... its merged energy is the profiles' (0.5 %)" test "$(wc -l <<<"$out")" = 1

finish_checks

# SPDX-License-Identifier: BSD-3-Clause
# What the SPANK tests share (sourced inside their network and mount namespace, not run):
# loopback with an address Slurm accepts, a throw-away directory and user, a fake powercap
# node driven by power_profile.py, the user's work directory, and a cleanup at exit that stops
# Slurm's daemons and the writer by their PIDs. Sets dir, user, node, work and writer, and
# sources checks.sh.   Usage: source spank_node.sh NAME   (NAME: a short word for the paths)
ip link set lo up
ip addr add 192.0.2.1/32 dev lo # see slurm_energy_test.sh: Slurm ignores 127/8
dir=$(mktemp -d "/tmp/jp-$1.XXXXXX")
user=jp$1$$
writer=
cleanup() {
    bash "$HERE/slurm_node.sh" stop "$dir" || true
    [[ -n $writer ]] && kill "$writer" 2>/dev/null && wait "$writer" 2>/dev/null
    userdel "$user" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
source "$HERE/checks.sh"

useradd -M -N -s /bin/bash "$user"
node=$dir/node
python3 "$HERE/power_profile.py" write "$node" &
writer=$!
for _ in $(seq 100); do [[ -s $node/t0_ns ]] && break; sleep 0.02; done
work=$dir/work
mkdir -p "$work"
chown "$user" "$work"
chmod 0755 "$dir"
as_user() { (cd "$work" && runuser -u "$user" -- "$@"); }

# Two jobs sharing the node, one CPU each of its two: a 2 s busy loop beside a 2 s sleep, each
# `srun --jouleprof` printing its step first ($step_cmd, then the seconds it sleeps); their
# output in $dir/f.out and $dir/g.out. Sets busy_step and idle_step.
two_jobs() {
    as_user srun --jouleprof=interval=100ms,result=no -n 1 bash -c \
        "$step_cmd 0; timeout 2 sh -c 'while :; do :; done'" > "$dir/f.out" 2>&1 &
    local busy_pid=$!
    as_user srun --jouleprof=interval=100ms,result=no -n 1 bash -c "$step_cmd 2" > "$dir/g.out" 2>&1 &
    local idle_pid=$!
    wait "$busy_pid" "$idle_pid" || true
    busy_step=$(ids "$dir/f.out") idle_step=$(ids "$dir/g.out")
}

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real Slurm of N compute nodes on one machine: slurmctld and munged in the
# caller's network namespace (made by multinode_test.sh), each slurmd in a
# network namespace of its own (jpnK, 192.0.2.1K on a bridge; entered with
# nsenter, as `ip netns exec` would hide /sys/fs/cgroup from slurmd), with its own
# UTS and mount namespace in which DIR/nodeK (a fake powercap tree) is seen at
# DIR/node. All daemons are stopped by their PIDs.
# Usage: slurm_cluster.sh start DIR N | stop DIR N
set -euo pipefail
[[ -n ${JP_TRACE_SH:-} ]] && set -x
action=$1 dir=$2 n=$3

# Each daemon by the PID it wrote: SIGTERM, up to 5 s to go, then SIGKILL.
alive() { [[ -d /proc/$1 ]] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
stop() {
    local pids=()
    for k in $(seq "$n"); do
        [[ -s $dir/slurmd.jpn$k.pid ]] && pids+=("$(cat "$dir/slurmd.jpn$k.pid")")
    done
    for pidfile in "$dir"/slurmctld.pid "$dir"/munged.pid; do
        [[ -s $pidfile ]] && pids+=("$(cat "$pidfile")")
    done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 100); do alive "$pid" || break; sleep 0.05; done
        kill -9 "$pid" 2>/dev/null || true
    done
    for k in $(seq "$n"); do ip netns delete "jpn$k" 2>/dev/null || true; done
}

start() {
    mkdir -p "$dir"/state "$dir"/spool
    chmod 0755 "$dir"
    ip link add jpbr0 type bridge
    ip addr add 192.0.2.1/24 dev jpbr0
    ip link set jpbr0 up
    local nodes=""
    for k in $(seq "$n"); do
        ip netns add "jpn$k"
        ip link add "jpv$k" type veth peer name eth0 netns "jpn$k"
        ip link set "jpv$k" master jpbr0 up
        ip -n "jpn$k" addr add "192.0.2.1$k/24" dev eth0
        ip -n "jpn$k" link set eth0 up
        ip -n "jpn$k" link set lo up
        nodes+="NodeName=jpn$k NodeAddr=192.0.2.1$k CPUs=2 RealMemory=500 State=UNKNOWN"$'\n'
    done
    mungekey --create --force --keyfile="$dir/munge.key"
    chmod 0400 "$dir/munge.key"
    munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
    cat > "$dir/slurm.conf" <<CONF
ClusterName=jpmulti
SlurmctldHost=jpctl(192.0.2.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=100
MailProg=/bin/true
ReturnToService=2
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.%n.log
${nodes}PartitionName=debug Nodes=jpn[1-$n] Default=YES MaxTime=INFINITE State=UP
CONF
    if [[ -f $dir/slurm.extra.conf ]]; then cat "$dir/slurm.extra.conf" >> "$dir/slurm.conf"; fi
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF"
    for k in $(seq "$n"); do
        mkdir -p "$dir/spool/jpn$k" "$dir/node"
        nsenter --net="/run/netns/jpn$k" unshare --uts --mount --propagation private -- sh -c \
            "hostname jpn$k && mount --bind '$dir/node$k' '$dir/node' &&
             exec slurmd -f '$SLURM_CONF' -N jpn$k" ||
            { echo "slurmd jpn$k did not start:" >&2; tail -n 5 "$dir/slurmd.jpn$k.log" >&2; exit 1; }
    done
    for _ in $(seq 150); do
        # sinfo blocks for seconds against a dead slurmctld: check it first.
        kill -0 "$(cat "$dir/slurmctld.pid" 2>/dev/null || echo 0)" 2>/dev/null ||
            { echo "slurmctld died:" >&2; tail -n 5 "$dir/slurmctld.log" >&2; exit 1; }
        if [[ $(sinfo -h -N -o %T 2>/dev/null | grep -c '^idle') == "$n" ]]; then
            return 0
        fi
        sleep 0.2
    done
    echo "the $n nodes did not become idle in 30 s:" >&2
    sinfo -N >&2 || true
    tail -n 5 "$dir"/slurmd.jpn*.log "$dir/slurmctld.log" >&2 || true
    exit 1
}

case $action in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start DIR N | stop DIR N" >&2; exit 2 ;;
esac

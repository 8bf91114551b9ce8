#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real single-node Slurm (slurmctld, slurmd, munged) whose rapl energy plugin
# reads a stand-in MSR file at a known power. Run inside the private network
# and mount namespace slurm_energy_test.sh makes: nothing listens outside it,
# and /dev/cpu is a tmpfs only this namespace sees.
# With DIR/accounting present, also MariaDB (its socket on a tmpfs over
# /run/mysqld, private to the namespace) and slurmdbd, so that sacct reports
# the steps' ConsumedEnergyRaw; DIR/accounting names the user to register.
# With DIR/cgroup present, Slurm's own cgroup plugins (cgroup/v1: proctrack/cgroup,
# task/cgroup with task/affinity binding each step to its cores, jobacct_gather/cgroup)
# instead of linuxproc: each step in slurm_localhost/uid_*/job_*/step_* of every v1 controller.
# Usage: slurm_node.sh start DIR WATTS | stop DIR
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
action=$1 dir=$2

stop() {
    # Every daemon asked to stop at once, each given up to 5 s together, then killed: one by
    # one, each waiting for its own shutdown, they took ~18 s of every Slurm test.
    local pids=() pid
    for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/slurmdbd.pid "$dir"/mysql/mysqld.pid \
        "$dir"/msr.pid "$dir"/munged.pid; do
        [[ -s $pidfile ]] || continue
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null && pids+=("$pid")
    done
    for _ in $(seq 100); do
        local alive=0
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        ((alive)) || break
        sleep 0.05
    done
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    # What Slurm's cgroup plugins leave behind (this test cluster's node is `localhost`, and
    # one Slurm test runs at a time): any process still in them, by its PID, then the groups.
    if [[ -f $dir/cgroup ]]; then
        local procs
        shopt -s globstar
        procs=$(cat /sys/fs/cgroup/*/slurm_localhost/**/cgroup.procs 2>/dev/null | sort -u || true)
        for pid in $procs; do kill -9 "$pid" 2>/dev/null || true; done
        for _ in $(seq 50); do
            find /sys/fs/cgroup/*/slurm_localhost -depth -type d -exec rmdir {} + 2>/dev/null || true
            compgen -G "/sys/fs/cgroup/*/slurm_localhost" >/dev/null || break
            sleep 0.1
        done
        if compgen -G "/sys/fs/cgroup/*/slurm_localhost" >/dev/null; then
            echo "slurm_node.sh: Slurm's groups remain:" /sys/fs/cgroup/*/slurm_localhost >&2
        fi
    fi
}

# MariaDB in DIR/mysql and slurmdbd, both stopped by their PIDs.
start_accounting() {
    # sacctmgr and slurmdbd find munged at its default socket whatever AuthInfo says.
    mkdir -p /run/munge
    mount -t tmpfs -o mode=0755 jp-munge /run/munge
    ln -s "$dir/munge.sock" /run/munge/munge.socket.2
    mount -t tmpfs -o mode=0755 jp-mysqld /run/mysqld 2>/dev/null ||
        { mkdir -p /run/mysqld && mount -t tmpfs -o mode=0755 jp-mysqld /run/mysqld; }
    chown mysql:mysql /run/mysqld
    mkdir -p "$dir/mysql"
    chown mysql:mysql "$dir/mysql"
    mariadb-install-db --user=mysql --datadir="$dir/mysql" --skip-test-db >"$dir/mysql-install.log" 2>&1
    mariadbd --user=mysql --datadir="$dir/mysql" --socket=/run/mysqld/mysqld.sock \
        --pid-file="$dir/mysql/mysqld.pid" --skip-networking --log-error="$dir/mysql/mysqld.log" &
    for _ in $(seq 150); do mariadb -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
    mariadb -e "CREATE DATABASE slurm_acct_db; CREATE USER 'slurm'@'localhost' IDENTIFIED BY 'jp';
                GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
    cat > "$dir/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
DbdHost=localhost
SlurmUser=root
PidFile=$dir/slurmdbd.pid
LogFile=$dir/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=jp
CONF
    chmod 0600 "$dir/slurmdbd.conf"
    SLURM_CONF="$dir/slurm.conf" slurmdbd
}

# The cluster and the test's user in slurmdbd, before slurmctld starts.
register_accounts() {
    local user=$1
    export SLURM_CONF="$dir/slurm.conf"
    for _ in $(seq 100); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
    sacctmgr -i add cluster jptest >/dev/null
    sacctmgr -i add account jp Description=jp Organization=jp >/dev/null
    sacctmgr -i add user "$user" Account=jp >/dev/null
}

start() {
    local watts=$1
    mkdir -p "$dir"/state "$dir"/spool
    chmod 0755 "$dir"
    mount -t tmpfs -o mode=0755 jp-msr /dev/cpu
    mkdir -p /dev/cpu/0
    python3 "$HERE/fake_msr.py" /dev/cpu/0/msr "$watts" &
    echo $! > "$dir"/msr.pid
    for _ in $(seq 100); do [[ -s /dev/cpu/0/msr ]] && break; sleep 0.02; done

    mungekey --create --force --keyfile="$dir/munge.key"
    chmod 0400 "$dir/munge.key"
    munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"

    if [[ -f $dir/accounting ]]; then start_accounting "$(cat "$dir/accounting")"; fi
    local proctrack=proctrack/linuxproc task=task/none gather=jobacct_gather/linux
    if [[ -f $dir/cgroup ]]; then
        proctrack=proctrack/cgroup task=task/cgroup,task/affinity gather=jobacct_gather/cgroup
        printf '%s\n' "CgroupPlugin=cgroup/v1" "ConstrainCores=yes" > "$dir/cgroup.conf"
    fi
    cat > "$dir/slurm.conf" <<CONF
ClusterName=jptest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
MpiDefault=none
ProctrackType=$proctrack
TaskPlugin=$task
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=100
MailProg=/bin/true
ReturnToService=2
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
JobAcctGatherType=$gather
JobAcctGatherFrequency=task=1,energy=1
AcctGatherEnergyType=acct_gather_energy/rapl
AcctGatherNodeFreq=1
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    if [[ -f $dir/accounting ]]; then
        printf '%s\n' "AccountingStorageType=accounting_storage/slurmdbd" \
            "AccountingStorageHost=localhost" "AccountingStorageTRES=energy,cpu,mem,node" \
            >> "$dir/slurm.conf"
        register_accounts "$(cat "$dir/accounting")"
    fi
    # More lines from the caller (e.g. PlugStackConfig=): DIR/slurm.extra.conf.
    if [[ -f $dir/slurm.extra.conf ]]; then cat "$dir/slurm.extra.conf" >> "$dir/slurm.conf"; fi
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF" -N localhost
    # Idle and polled: CurrentWatts is the plugin's first reading.
    for _ in $(seq 150); do
        for d in slurmctld slurmd; do
            if ! kill -0 "$(cat "$dir/$d.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
                sleep 0.2
                kill -0 "$(cat "$dir/$d.pid" 2>/dev/null || echo 0)" 2>/dev/null ||
                    { echo "$d did not start:" >&2; tail -n 5 "$dir/$d.log" >&2; exit 1; }
            fi
        done
        if scontrol show node localhost 2>/dev/null | grep -q "State=IDLE" &&
            scontrol show node localhost | grep -Eq "CurrentWatts=[1-9]"; then
            return 0
        fi
        sleep 0.2
    done
    echo "the node did not become idle with a power reading in 30 s:" >&2
    scontrol show node localhost >&2 || true
    tail -n 5 "$dir/slurmd.log" >&2
    exit 1
}

case $action in
    start) start "$3" ;;
    stop) stop ;;
    *) echo "usage: $0 start DIR WATTS | stop DIR" >&2; exit 2 ;;
esac

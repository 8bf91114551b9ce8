#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What a 1 kHz CPU energy profile costs the job (issue 31, docs/kernel-sampling.md): a fixed
# CPU-bound job (jp_bench_spin, pinned to CPU 0, about SECONDS long) alone, under `jouleprof
# run -i 1ms` with its counter sampled in the kernel (eBPF), and with the same counter read
# from the sampler's timer; RUNS of each, interleaved. Prints per case the job's time (median,
# min–max), its slowdown against alone, the monitor's CPU (wait4) and wake-ups a second
# (voluntary context switches of all its threads), and the eBPF program's own time a run
# (kernel.bpf_stats_enabled, set for the run and put back). Asserts nothing.
#
# The counter: this VM has no RAPL PMU, so a sysfs `power` PMU (under --sysfs-root) whose
# type is the real msr PMU's makes energy-pkg the TSC, read on CPU 0 as RAPL's would be; a
# real RAPL read costs more (an MSR read) in both cases. Root (the kernel sampler's need).
#   bench/kernel_sampling.sh [SECONDS [RUNS [BUILD_DIR [JOB_CPU]]]]
#   defaults: 20 10 build/release 0 (the counter's CPU, where the kernel's tick interrupts the
#   job; JOB_CPU 1 puts the job beside it instead)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
runs=${2:-10}
build=$(realpath "${3:-build/release}")
job_cpu=${4:-0}
bin=$build/src/jouleprof
spin=$build/bench/jp_bench_spin
wake=$build/bench/jp_bench_wake
for f in "$bin" "$spin" "$wake"; do
    [[ -x $f ]] || { echo "bench/kernel_sampling.sh: $f is not built" >&2; exit 2; }
done
[[ $(id -u) -eq 0 ]] || { echo "bench/kernel_sampling.sh: needs root (the kernel sampler)" >&2; exit 2; }
msr=/sys/bus/event_source/devices/msr/type
[[ -r $msr ]] || { echo "bench/kernel_sampling.sh: no msr PMU here ($msr)" >&2; exit 2; }
work=$(mktemp -d)
stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)
trap 'echo "$stats_before" > /proc/sys/kernel/bpf_stats_enabled; rm -rf "$work"' EXIT
echo 1 > /proc/sys/kernel/bpf_stats_enabled
pmu=$work/node/sys/bus/event_source/devices/power
mkdir -p "$pmu/events"
cat "$msr" > "$pmu/type"
echo 0 > "$pmu/cpumask"
echo event=0x00 > "$pmu/events/energy-pkg"
echo 2.3283064365386962890625e-10 > "$pmu/events/energy-pkg.scale"
echo Joules > "$pmu/events/energy-pkg.unit"
printf '[sensors.perf_rapl]\nkernel_sampling = false\n' > "$work/timer.toml"
: > "$work/kernel.toml"
rounds=$(taskset -c "$job_cpu" "$spin" --seconds "$seconds")
echo "job: $rounds rounds of jp_bench_spin on CPU $job_cpu (~$seconds s; the counter's CPU is 0);" \
     "$runs runs of each case; $(nproc) CPUs"
python3 - "$bin" "$spin" "$work" "$rounds" "$runs" "$job_cpu" <<'INNER'
import os, re, statistics, subprocess, sys
binary, spin, work, rounds, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
job = ["taskset", "-c", sys.argv[6], spin, rounds]
def once(case):
    if case == "alone":
        argv = job
    else:
        argv = [binary, "-v", "--sysfs-root", f"{work}/node", "-c", f"{work}/{case}.toml", "run",
                "--no-live", "-i", "1ms", "-o", f"{work}/{case}.jptrace", "--", *job]
        if os.path.exists(f"{work}/{case}.jptrace"):
            os.remove(f"{work}/{case}.jptrace")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(w, 1)
        os.dup2(w, 2)
        os.execvp(argv[0], argv)
    os.close(w)
    out = b""
    while chunk := os.read(r, 65536):
        out += chunk
    os.close(r)
    _, status, usage = os.wait4(pid, 0)
    text = out.decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{case}: exit {status}:\n{text}")
    m = re.search(r"^(\d+\.\d+) (\d+\.\d+) \d+$", text, re.M)
    job_s, job_cpu = float(m.group(1)), float(m.group(2))
    prog = re.search(r"kernel sampler ran (\d+) times, (\d+) ns a run", text)
    mode = "kernel" if "sampled in the kernel" in text else ("timer" if "read from a timer" in text else "-")
    # The monitor's own CPU: wait4 gives the whole tree's (jouleprof and the job it waited
    # for); the job's own CPU, which it prints, is taken away.
    monitor_cpu = usage.ru_utime + usage.ru_stime - job_cpu
    return job_s, monitor_cpu, usage.ru_nvcsw, prog, mode
results = {c: [] for c in ("alone", "kernel", "timer")}
for i in range(runs):
    for case in results:
        results[case].append(once(case))
alone = statistics.median(r[0] for r in results["alone"])
for case, rs in results.items():
    t = [r[0] for r in rs]
    med = statistics.median(t)
    line = f"{case:6}: job {med:.3f} s (min {min(t):.3f}, max {max(t):.3f})"
    if case != "alone":
        over = statistics.median(r[1] for r in rs)
        wakes = statistics.median(r[2] / r[0] for r in rs)
        line += (f", slowdown {100 * (med / alone - 1):+.2f} % (min {100 * (min(t) / alone - 1):+.2f},"
                 f" max {100 * (max(t) / alone - 1):+.2f}); monitor CPU {over:.3f} s"
                 f" ({1e3 * over / med:.2f} ms/s); voluntary switches {wakes:.1f}/s; read as {rs[0][4]}")
        progs = [r[3] for r in rs if r[3]]
        if progs:
            per = statistics.median(int(p.group(2)) for p in progs)
            n = statistics.median(int(p.group(1)) for p in progs)
            line += f"; eBPF program {per:.0f} ns a run, {n:.0f} runs"
    print(line)
INNER
echo "the floor (jp_bench_wake 5: one periodic wake-up of an idle thread, µs of CPU):"
"$wake" 5

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Where the kernel sampler's missing ticks go (issue 31: >= 99.9 % of the ticks present;
# docs/kernel-sampling.md, "Completeness"). Runs the 1 kHz, 10 s sampler test RUNS times (it
# keeps each counter's CPU busy itself, and with JP_TEST_PRINT_GAPS prints each gap in a
# counter's readings) while a tracing instance of its own records, on CPU (0 or 1: the CPUs the
# test samples), on the monotonic clock: every firing of the tick's timer
# (timer:hrtimer_expire_entry of perf_swevent_hrtimer), every timer interrupt
# (irq_vectors:local_timer_entry, x86), every task switch (sched:sched_switch) and every bpf()
# call (syscalls:sys_enter_bpf/sys_exit_bpf). Prints per run:
#   the readings on that CPU; the timer's firings and the interrupts, with their gaps;
#   for each task that had the CPU at a firing the program did not run at (one inside a gap
#   in the readings): those firings against all its firings, and how long it held the CPU;
#   how many of those firings came during a bpf() call on that CPU.
# Asserts nothing. Root (tracefs, the kernel sampler); tracefs is mounted in a private mount
# namespace if it is not mounted, and the instance is removed at the end.
#   bench/tick_gaps.sh [RUNS [BUILD_DIR [CPU]]]     defaults: 5 build/ci 0
set -euo pipefail
self=$(realpath "$0")
runs=${1:-5}
build=$(realpath -m "${2:-$(dirname "$self")/../build/ci}")
cpu=${3:-0}
test_bin=$build/tests/unit_bpf
[[ $runs =~ ^[1-9][0-9]*$ && $cpu =~ ^[01]$ ]] ||
    { echo "usage: bench/tick_gaps.sh [RUNS>=1 [BUILD_DIR [CPU: 0 or 1]]]" >&2; exit 2; }
[[ -x $test_bin ]] || { echo "bench/tick_gaps.sh: $test_bin is not built" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "bench/tick_gaps.sh: needs root (tracefs, the kernel sampler)" >&2; exit 2; }
if [[ -z ${JP_TICK_GAPS_NS:-} ]]; then
    exec env JP_TICK_GAPS_NS=1 unshare -m --propagation private bash "$self" "$runs" "$build" "$cpu"
fi
tracing=/sys/kernel/tracing
[[ -e $tracing/instances ]] || mount -t tracefs nodev "$tracing"
instance=$tracing/instances/jp-tick-gaps-$$
out=
test_pid=
made=
cleanup() {
    [[ -n $test_pid ]] && kill "$test_pid" 2>/dev/null && wait "$test_pid" 2>/dev/null
    if [[ -n $made ]]; then
        { echo 0 > "$instance/tracing_on"; } 2>/dev/null || true
        # An instance outlives this namespace: one left behind keeps tracing.
        rmdir "$instance" 2>/dev/null ||
            echo "bench/tick_gaps.sh: could not remove $instance: rmdir it" >&2
    fi
    [[ -n $out ]] && rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
out=$(mktemp -d)
mkdir "$instance"
made=1
echo mono > "$instance/trace_clock"
printf '%x\n' $((1 << cpu)) > "$instance/tracing_cpumask"
echo 32768 > "$instance/per_cpu/cpu$cpu/buffer_size_kb"
bpf_traced=1
for event in timer/hrtimer_expire_entry irq_vectors/local_timer_entry sched/sched_switch \
    syscalls/sys_enter_bpf syscalls/sys_exit_bpf; do
    if [[ -e $instance/events/$event/enable ]]; then
        echo 1 > "$instance/events/$event/enable"
    else
        echo "bench/tick_gaps.sh: this kernel has no $event event: left out" >&2
        [[ $event == syscalls/* ]] && bpf_traced=0
    fi
done
for ((run = 1; run <= runs; ++run)); do
    echo 0 > "$instance/tracing_on"
    : > "$instance/trace"
    echo 1 > "$instance/tracing_on"
    status=0
    JP_TEST_PRINT_GAPS=1 "$test_bin" \
        --gtest_filter='KernelSampler_.AKilohertzForTenSecondsIsCompleteAndWithinATickOfTheTruth' \
        > "$out/test" 2>&1 &
    test_pid=$!
    wait "$test_pid" || status=$?
    test_pid=
    echo 0 > "$instance/tracing_on"
    cp "$instance/trace" "$out/trace"
    line=$(grep -E "^cpu-clock@$cpu: [0-9]+ readings of [0-9]" "$out/test" | cut -d, -f1 || true)
    echo "run $run, CPU $cpu: ${line:-the test printed no line for CPU $cpu}"
    if ((status != 0)); then
        echo "  the test exited with status $status; its last lines:"
        tail -n 5 "$out/test" | sed 's/^/    /'
    fi
    overrun=$(awk '/^overrun:/ {print $2}' "$instance/per_cpu/cpu$cpu/stats")
    [[ ${overrun:-0} == 0 ]] || echo "  the trace lost $overrun events: its counts are short"
    python3 - "$out/trace" "$out/test" "$cpu" "$bpf_traced" <<'EOF'
import collections, re, statistics, sys
trace, test, cpu, bpf_traced = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
line_re = re.compile(r"\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+(\d+\.\d+): (\w+): ?(.*)")
next_re = re.compile(r"next_comm=(.+?) next_pid=(\d+)")
fires, interrupts = [], []   # fires: (time, task)
spans = []                   # (start, end, task): who had the CPU, from the switches
bpf_calls = []               # (start, end) of each bpf() call on this CPU
current, since, bpf_open = None, None, {}
for line in open(trace):
    m = line_re.match(line)
    if not m:
        continue
    task = m.group(1)
    t, event, rest = float(m.group(3)), m.group(4), m.group(5)
    if event == "hrtimer_expire_entry" and "perf_swevent_hrtimer" in rest:
        fires.append((t, task))
    elif event == "local_timer_entry":
        interrupts.append(t)
    elif event == "sched_switch":
        n = next_re.search(rest)
        if current is not None:
            spans.append((since, t, current))
        # The idle task is "swapper/N" to the switch, "<idle>" in the task column.
        name = n.group(1) if n else "?"
        current, since = ("<idle>" if name.startswith("swapper/") else name), t
    elif event == "sys_enter_bpf":
        bpf_open[m.group(2)] = t
    elif event == "sys_exit_bpf" and m.group(2) in bpf_open:
        bpf_calls.append((bpf_open.pop(m.group(2)), t))
if not fires:
    print("  the tick's timer never fired on this CPU")
    sys.exit()
lo, hi = fires[0][0], fires[-1][0]
def gaps(times):
    return [f"{(b - a) * 1e3:.2f} ms" for a, b in zip(times, times[1:]) if b - a > 0.0015]
for what, times in (("the tick's timer fired", [t for t, _ in fires]),
                    ("timer interrupts", [t for t in interrupts if lo <= t <= hi])):
    if not times:
        continue
    g = gaps(times)
    print(f"  {what}: {len(times)} times in {hi - lo:.2f} s; gaps over 1.5 ms: {len(g)}"
          + (f" ({', '.join(g[:8])}{', ...' if len(g) > 8 else ''})" if g else ""))
holes = [(int(a) / 1e9, int(b) / 1e9) for _, name, a, b in
         (l.split() for l in open(test) if l.startswith("GAP "))
         if name == f"cpu-clock@{cpu}"]
missed = [(t, task) for t, task in fires
          if any(a + 0.0002 < t < b - 0.0002 for a, b in holes)]
if not missed:
    print(f"  the readings' gaps: {len(holes)}; no firing fell inside one")
    sys.exit()
all_by = collections.Counter(task for _, task in fires)
missed_by = collections.Counter(task for _, task in missed)
held = collections.defaultdict(list)
for a, b, task in spans:
    held[task].append((b - a) * 1e3)
print(f"  the readings' gaps: {len(holes)}; the timer fired in them {len(missed)} times")
for task, n in missed_by.most_common():
    h = held.get(task, [])
    hold = (f"; it held the CPU {len(h)} times, median {statistics.median(h):.2f} ms, "
            f"longest {max(h):.2f} ms" if h else "")
    print(f"    with {task} running: {n} of its {all_by[task]} firings passed over{hold}")
if bpf_traced:
    in_bpf = sum(1 for t, _ in missed if any(a <= t <= b for a, b in bpf_calls))
    print(f"    during a bpf() call on CPU {cpu}: {in_bpf} of {len(missed)} "
          f"({len(bpf_calls)} bpf() calls traced on it in all)")
else:
    print("    bpf() calls: not traced (this kernel has no syscalls events)")
EOF
done

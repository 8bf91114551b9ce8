#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What one `jouleprof run` costs outside its sampling, on a fake RAPL tree
# (six counters ticking at 1 kHz: bench/fake_powercap.cpp, read through --sysfs-root):
#   - CPU time (user + system, from wait4) of `run -- true`, median of 11;
#   - how long after its job `run` exits (wall − the job's 2 s), at 500 ms and 1 ms, median of 5;
#   - peak RSS over a 5 s job at 500 ms and at 1 ms (GNU time's %M: apt-get install time).
# Prints figures; asserts nothing. Any user; no namespace, no root.
#   bench/run_cost.sh [JOULEPROF_BINARY [FAKE_POWERCAP_BINARY]]
#   defaults: build/release/src/jouleprof, build/release/bench/jp_fake_powercap
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/release/src/jouleprof}")
[[ -x $bin ]] || { echo "bench/run_cost.sh: $bin is not built" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench/run_cost.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
fake=$(realpath "${2:-$(dirname "$bin")/../bench/jp_fake_powercap}")
[[ -x $fake ]] || { echo "bench/run_cost.sh: $fake is not built (target jp_fake_powercap)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/inner.py" <<'INNER'
import os, statistics, sys, time
binary, work = sys.argv[1], sys.argv[2]
count = 0
def run(*args):
    """CPU seconds (user + system, from wait4), wall seconds and peak RSS (KiB) of one run."""
    global count
    count += 1
    argv = [binary, "-q", "--sysfs-root", f"{work}/node", "run", "--no-live", "-o", f"{work}/{count}.jptrace", *args]
    with open(os.devnull, "w") as null:
        t0 = time.monotonic()
        pid = os.posix_spawn(binary, argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, null.fileno(), 1), (os.POSIX_SPAWN_DUP2, null.fileno(), 2)])
        _, status, ru = os.wait4(pid, 0)
        wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench/run_cost.sh: {' '.join(argv)} failed")
    return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss
cpu = statistics.median(run("--", "true")[0] for _ in range(11))
print(f"CPU of run -- true (median of 11): {cpu * 1e3:.1f} ms")
for iv in ("500ms", "1ms"):
    after = statistics.median(run("-i", iv, "--", "sleep", "2")[1] - 2 for _ in range(5))
    print(f"exit after a 2 s job at {iv} (median of 5): {after * 1e3:.0f} ms")
def peak_rss_kib(*args):
    """jouleprof's peak RSS (KiB) as GNU time reports it. Not from the wait4 above: a child
    that posix_spawn starts shares Python's memory until it execs, and the kernel counts that
    memory's high-water mark (~10 MiB) in the child's ru_maxrss."""
    global count
    count += 1
    out = f"{work}/{count}.rss"
    argv = ["/usr/bin/time", "-f", "%M", "-o", out, binary, "-q", "--sysfs-root", f"{work}/node",
            "run", "--no-live",
            "-o", f"{work}/{count}.jptrace", *args]
    with open(os.devnull, "w") as null:
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, null.fileno(), 1), (os.POSIX_SPAWN_DUP2, null.fileno(), 2)])
        os.waitpid(pid, 0)
    with open(out) as f:
        return int(f.read().split()[-1])
for iv in ("500ms", "1ms"):
    print(f"peak RSS over a 5 s job at {iv}: {peak_rss_kib('-i', iv, '--', 'sleep', '5') / 1024:.1f} MiB")
INNER
"$fake" "$work/node" -- /usr/bin/python3 "$work/inner.py" "$bin" "$work"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What jouleprof costs on an 8-GPU node (the GPU-node issue; figures in docs/overhead.md):
# eight stand-in H100s (the stand-in NVML with model=h100: each energy read spins 3.9 ms of
# CPU, the counter and fields change every 100 ms, as measured on a real H100,
# docs/gpu-check.md) beside two RAPL packages (jp_fake_powercap), read as a real node is.
#   - the monitor's whole-process CPU (its JSON's monitor_cpu_s) over a 10 s `sleep` at
#     -i 100ms and -i 10ms, read the default way (each GPU's energy counter at the edges and
#     every 10 s anchor, its power fields at the interval) and with [sensors.nvml]
#     anchor = "off" (the counter at the interval on its own thread, as before anchors);
#   - what the eight GPUs add to `run -- true` (median of 15 walls each, with and without
#     them in turn): discovery (one probe read per GPU) and the two edges.
# Prints figures; asserts nothing. Any user; no namespace, no root.
#   bench/gpu_node_cost.sh [JOULEPROF [BENCH_BUILD_DIR]]   # defaults: build/release/src/jouleprof, build/release/bench
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/release/src/jouleprof}")
benchdir=$(realpath "${2:-build/release/bench}")
for f in "$bin" "$benchdir/jp_fake_powercap" "$benchdir/libfake-nvidia-ml.so"; do
    [[ -e $f ]] || { echo "bench/gpu_node_cost.sh: $f is not built" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in 0 1 2 3 4 5 6 7; do
    printf 'gpu %d 00000000:%02X:00.0 model=h100\npower %d 0 300\n' "$i" $((0x18 + 16 * i)) "$i"
done >"$work/h100x8.fixture"
printf '# no GPU\n' >"$work/none.fixture"
printf '' >"$work/anchored.toml"
printf '[sensors.nvml]\nanchor = "off"\n' >"$work/off.toml"
"$benchdir/jp_fake_powercap" --hz 100 "$work/node" -- python3 - "$bin" "$benchdir/libfake-nvidia-ml.so" "$work" <<'PY'
import json, os, statistics, subprocess, sys, time
binary, lib, work = sys.argv[1:4]
def jp(fixture, *args, capture=False, mode="anchored"):
    env = dict(os.environ, JP_FAKE_NVML_FIXTURE=f"{work}/{fixture}.fixture")
    argv = [binary, "-q", "--sysfs-root", f"{work}/node", "-c", f"{work}/{mode}.toml",
            "--nvml-library", lib, "run", "--no-live",
            "-o", f"{work}/t-{time.monotonic_ns()}.jptrace", *args]
    return subprocess.run(argv, env=env, check=True, text=True,
                          stdout=subprocess.PIPE if capture else subprocess.DEVNULL)
channels = json.loads(jp("h100x8", "--json", "--", "true", capture=True).stdout)["groups"][0]["runs"][0]["parts"]
print("channels:", ", ".join(p["name"] for p in channels))
def cpu(mode, iv, seconds):
    r = json.loads(jp("h100x8", "-i", iv, "--json", "--", "sleep", str(seconds), capture=True,
                      mode=mode).stdout)
    run = r["groups"][0]["runs"][0]
    return run["monitor_cpu_s"], run["runtime_s"]
for mode in ("anchored", "off"):
    for iv in ("100ms", "10ms"):
        c10, t10 = cpu(mode, iv, 10)
        line = (f"anchor {'10s' if mode == 'anchored' else 'off'}, -i {iv}: monitor CPU "
                f"{c10:.3f} s over {t10:.1f} s = {100 * c10 / t10:.2f} % of a core")
        if mode == "anchored":
            # A 60 s job as well: what each second costs once discovery and the edges (8 GPU
            # counter reads at each end) are paid.
            c60, t60 = cpu(mode, iv, 60)
            line += (f"; 60 s: {100 * c60 / t60:.2f} %; each further second "
                     f"{100 * (c60 - c10) / (t60 - t10):.2f} %")
        print(line)
# With and without the GPUs in turn, so that a slow spell of the machine falls on both.
walls = {"h100x8": [], "none": []}
for _ in range(15):
    for fixture in walls:
        t = time.monotonic()
        jp(fixture, "--", "true")
        walls[fixture].append(time.monotonic() - t)
w8, w0 = (statistics.median(walls[k]) for k in ("h100x8", "none"))
q8 = statistics.quantiles(walls["h100x8"], n=4)
print(f"run -- true, median of 15 alternating: {w8 * 1e3:.1f} ms with 8 GPUs (IQR {q8[0] * 1e3:.1f}-{q8[2] * 1e3:.1f}), "
      f"{w0 * 1e3:.1f} ms without: the GPUs add {(w8 - w0) * 1e3:.1f} ms (discovery and both edges)")
PY

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""jouleprof's GPU energy of each marked phase against the driver's counter read back to back.

    python3 bench/gpu/phase_truth.py TRACE.jptrace RUN.json FIELDS.csv [CHANNEL]

TRACE and RUN.json: `jouleprof run -o TRACE --json-file RUN.json -- python3
bench/gpu/phase_load.py`; FIELDS.csv: bench/gpu/field_capture.py run beside it (with
ENERGY_GAP_MS=0, so each change of the counter is seen within one ~4 ms read). CHANNEL:
gpu0.

The reference: the counter's value changes every ~100 ms; each change is placed at the
middle of the read that first saw it. At a phase's edge the energy lies between the values
of the two changes around it (the counter never falls), so the phase's energy is known to
be within [low, high]; the straight line between the two changes gives the middle figure.
For each phase: jouleprof's figure with its stated bound, the reference and its range, and
whether jouleprof's figure lies within the reference's range.
"""
import bisect
import csv
import json
import sqlite3
import sys


def counter_changes(path):
    """(time ns, mJ) at each change of the energy counter, in time order."""
    out = []
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["what"] == "energy_mj":
                out.append(((int(row["t_ns"]) + int(row["t_end_ns"])) // 2, float(row["value"])))
    out.sort()
    return out


def at(changes, t):
    """(low, middle, high) mJ at time t."""
    i = bisect.bisect_right([c[0] for c in changes], t)
    if i == 0 or i == len(changes):
        raise SystemExit(f"phase_truth: {t} ns is outside the capture's counter readings")
    (t0, e0), (t1, e1) = changes[i - 1], changes[i]
    return e0, e0 + (e1 - e0) * (t - t0) / (t1 - t0), e1


def phases_in_trace(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    epoch = int(db.execute("SELECT value FROM meta WHERE key = 'epoch_mono_ns'").fetchone()[0])
    begins, out = {}, []
    for t, kind, name in db.execute("SELECT t_ns, kind, name FROM marker ORDER BY t_ns, rowid"):
        if kind == "begin":
            begins[name] = epoch + t
        elif kind == "end" and name in begins:
            out.append((name, begins.pop(name), epoch + t))
    return out


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: phase_truth.py TRACE.jptrace RUN.json FIELDS.csv [CHANNEL]")
    trace, run_json, fields = sys.argv[1:4]
    channel = sys.argv[4] if len(sys.argv) == 5 else "gpu0"
    changes = counter_changes(fields)
    run = json.load(open(run_json))["groups"][0]["runs"][0]
    reported = {}
    for p in run["phases"]:
        for item in p["parts"] + p["not_summed"]:
            if item["name"] == channel:
                reported[p["name"]] = item
    worst = 0.0
    for name, b, e in phases_in_trace(trace):
        lo_b, mid_b, hi_b = at(changes, b)
        lo_e, mid_e, hi_e = at(changes, e)
        ref, low, high = (mid_e - mid_b) / 1e3, (lo_e - hi_b) / 1e3, (hi_e - lo_b) / 1e3
        item = reported.get(name)
        if item is None:
            print(f"{name}: {(e - b) / 1e9:.3f} s, reference {ref:.1f} J [{low:.1f}, {high:.1f}]; jouleprof: none")
            continue
        got = item["energy_j"]
        bound = item.get("energy_bound_j")
        rel = (got - ref) / ref
        worst = max(worst, abs(rel))
        inside = "inside" if low <= got <= high else "OUTSIDE"
        print(f"{name}: {(e - b) / 1e9:.3f} s; jouleprof {got:.1f} J"
              f"{f' ± {bound:.1f}' if bound is not None else ''}"
              f"{' (bound assumes the profile)' if item.get('bound_assumes_profile') else ''}; "
              f"reference {ref:.1f} J [{low:.1f}, {high:.1f}]: {100 * rel:+.2f} %, {inside} the reference's range")
    print(f"worst difference from the reference's middle: {100 * worst:.2f} %")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How much of each period a GPU's power fields cover, from a square-wave capture.

    python3 bench/gpu/parttime.py FIELDS.csv EDGES.csv

FIELDS.csv: bench/gpu/field_capture.py's rows; EDGES.csv: bench/gpu/square_load.py's
on/off times of the same run (one clock: CLOCK_MONOTONIC). Prints:

1. over the wave (first on to last off), each power field's integral (the value held from
   the read that first saw it until the next change) against the energy counter's delta
   over the same span, as a ratio;
2. per field, the averaging window that explains its values best: each new value is
   taken as the mean of the true power over [seen - delay - window, seen - delay], the true
   power as off + (on - off) x load(t) with load(t) from EDGES; for each (window, delay) on
   a 1 ms grid, off and on are fitted by least squares and the fit's R^2 kept. A field that
   averages its whole update period shows window ~ period; one that samples part of it (the
   part-time effect, arXiv 2312.02741) a shorter window;
3. the same fit for the energy counter's increments (window = the span between two
   changes): R^2 near 1 means the counter integrates the whole time;
4. the counter's increments per update (median, p5-p95): a counter that integrates all the
   time holds each pulse of a pulse train in its updates alike; one that sampled part of
   each update would split them into two groups;
5. for a pulse train (load on under 30 % of the time), the instant field by when it was
   seen after a pulse began (4 ms bins), and the width of the bins at least half-way from
   the field's level between pulses to its highest: for a pulse shorter than the field's
   window, that width is the window.
Only the standard library; runs on the captures in tests/data/h100 and tests/data/h200.
"""
import statistics
import bisect
import csv
import sys


def read_fields(path):
    series = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            series.setdefault(row["what"], []).append((int(row["t_ns"]), float(row["value"])))
    for v in series.values():
        v.sort()
    return series


def read_edges(path):
    with open(path) as f:
        return [(int(r["on_ns"]), int(r["off_ns"])) for r in csv.DictReader(f)]


class Load:
    """The load's on-time within any span, from the on/off edges, in O(log n)."""

    def __init__(self, edges):
        self.on = [a for a, _ in edges]
        self.off = [b for _, b in edges]
        self.cum = [0]
        for a, b in edges:
            self.cum.append(self.cum[-1] + (b - a))

    def on_before(self, t):
        i = bisect.bisect_right(self.on, t)  # edges starting at or before t
        if i == 0:
            return 0
        return self.cum[i - 1] + min(t, self.off[i - 1]) - self.on[i - 1]

    def fraction(self, a, b):
        return (self.on_before(b) - self.on_before(a)) / (b - a) if b > a else 0.0


def held_integral(points, a, b):
    """Joules of a power series (mW values, held from each point) over [a, b] ns."""
    total = 0.0
    i = bisect.bisect_right([t for t, _ in points], a) - 1
    if i < 0:
        return None
    t = a
    while t < b:
        nxt = points[i + 1][0] if i + 1 < len(points) else b
        end = min(nxt, b)
        total += points[i][1] / 1e3 * (end - t) / 1e9
        t = end
        i += 1
    return total


def fit(xs, ys):
    """Least squares y = a + b x: (a, b, R^2)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return my, 0.0, 0.0
    b = sxy / sxx
    a = my - b * mx
    return a, b, sxy * sxy / (sxx * syy)


def best_window(points, load, span, windows, delays):
    """(R^2, window ms, delay ms, off W, on W) of the best fit of a field's changes."""
    pts = [(t, v) for t, v in points if span[0] + 2e9 <= t <= span[1]]
    if len(pts) < 10:
        return None
    best = None
    for w in windows:
        for d in delays:
            xs = [load.fraction(t - (d + w) * 1_000_000, t - d * 1_000_000) for t, _ in pts]
            a, b, r2 = fit(xs, [v / 1e3 for _, v in pts])
            if best is None or r2 > best[0]:
                best = (r2, w, d, a, a + b)
    return best


def counter_fit(points, load, span, delays):
    """(R^2, delay ms, off W, on W) for the counter's increments as power over their spans."""
    pts = [(t, v) for t, v in points if span[0] + 2e9 <= t <= span[1]]
    best = None
    for d in delays:
        xs, ys = [], []
        for (t0, e0), (t1, e1) in zip(pts, pts[1:]):
            dt = (t1 - t0) / 1e9
            xs.append(load.fraction(t0 - d * 1_000_000, t1 - d * 1_000_000))
            ys.append((e1 - e0) / 1e3 / dt)
        if len(xs) < 10:
            return None
        a, b, r2 = fit(xs, ys)
        if best is None or r2 > best[0]:
            best = (r2, d, a, a + b)
    return best


def counter_increments(points, span):
    """The counter's increments (J) between its changes within span."""
    pts = [(t, v) for t, v in points if span[0] <= t <= span[1]]
    return [(b[1] - a[1]) / 1e3 for a, b in zip(pts, pts[1:])]


def pulse_response(points, edges, span):
    """{bin start ms: [W]} of a field's readings by time since the latest pulse began."""
    ons = [a for a, _ in edges]
    bins = {}
    for t, v in points:
        if not span[0] + 3e8 <= t <= span[1]:
            continue
        i = bisect.bisect_right(ons, t) - 1
        if i >= 0:
            bins.setdefault(int((t - ons[i]) / 1e6 // 4) * 4, []).append(v / 1e3)
    return bins


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: parttime.py FIELDS.csv EDGES.csv")
    series = read_fields(sys.argv[1])
    edges = read_edges(sys.argv[2])
    if not edges or "energy_mj" not in series:
        sys.exit("parttime.py: no load edges or no energy counter in the capture")
    load = Load(edges)
    period = (edges[-1][0] - edges[0][0]) / max(1, len(edges) - 1) / 1e6
    energy = series["energy_mj"]
    times = [t for t, _ in energy]
    i0 = bisect.bisect_left(times, edges[0][0])
    i1 = bisect.bisect_right(times, edges[-1][1]) - 1
    (ta, ea), (tb, eb) = energy[i0], energy[i1]
    counter_j = (eb - ea) / 1e3
    print(f"wave: {len(edges)} periods of {period:.1f} ms, load on {100 * load.fraction(ta, tb):.1f} % "
          f"of the {(tb - ta) / 1e9:.2f} s between the counter reads that bracket it")
    print(f"energy counter: {counter_j:.1f} J = {counter_j / ((tb - ta) / 1e9):.1f} W mean")
    for what in ("instant_mw", "average_mw", "usage_mw"):
        if what in series:
            j = held_integral(series[what], ta, tb)
            if j is not None:
                print(f"{what[:-3]:8} field integral {j:.1f} J = {j / counter_j:.4f} x counter")
    span = (ta, tb)
    delays = range(0, 101, 2)
    for what, windows in (("instant_mw", range(1, 121)), ("average_mw", list(range(5, 121, 5)) + list(range(150, 1201, 50))),
                          ("usage_mw", list(range(5, 121, 5)) + list(range(150, 1201, 50)))):
        if what not in series:
            continue
        best = best_window(series[what], load, span, windows, delays)
        if best:
            r2, w, d, off, on = best
            print(f"{what[:-3]:8} best window {w} ms ending {d} ms before it was seen: R^2 {r2:.3f}, "
                  f"off {off:.0f} W, on {on:.0f} W")
    c = counter_fit(energy, load, span, delays)
    if c:
        r2, d, off, on = c
        print(f"counter  increments as power over their spans (shifted {d} ms): R^2 {r2:.3f}, "
              f"off {off:.0f} W, on {on:.0f} W")
    inc = counter_increments(energy, span)
    if len(inc) >= 20:
        q = statistics.quantiles(inc, n=20)
        print(f"counter  increments per update: median {statistics.median(inc):.2f} J, "
              f"p5-p95 {q[0]:.2f}-{q[-1]:.2f} J over {len(inc)} updates")
    pulse_ms = statistics.median((b - a) / 1e6 for a, b in edges)
    if load.fraction(ta, tb) < 0.3 and "instant_mw" in series:
        bins = pulse_response(series["instant_mw"], edges, span)
        means = {b: sum(v) / len(v) for b, v in bins.items()}
        between = statistics.median(v for b, vs in bins.items() if b >= 80 for v in vs)
        top = max(means.values())
        half = [b for b, m in sorted(means.items()) if m >= between + 0.5 * (top - between)]
        print(f"instant  by time since a {pulse_ms:.0f} ms pulse began (4 ms bins, mean W):")
        for b in sorted(means):
            print(f"  {b:3d}-{b + 4:<3d} ms  {means[b]:6.0f}  ({len(bins[b])})")
        if half:
            print(f"instant  at least half-way up ({between:.0f} to {top:.0f} W) from {half[0]} to "
                  f"{half[-1] + 4} ms after the pulse began: {half[-1] + 4 - half[0]} ms wide")


if __name__ == "__main__":
    main()

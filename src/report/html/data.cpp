// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/data.hpp"

#include "report/anchored.hpp"
#include "report/summary.hpp"
#include "trace/sort.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>

namespace jp::report::html {
namespace {

void fill_histogram(RunProfile& out, const GridSeries& g, const ProfileOptions& opt) {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    double total = 0;
    for (std::size_t i = 0; i < g.watts.size(); ++i) {
        if (std::isfinite(g.watts[i])) {
            lo = std::min(lo, g.watts[i]);
            hi = std::max(hi, g.watts[i]);
            total += g.seconds_of(i);
        }
    }
    if (!std::isfinite(lo) || total <= 0) {
        return;
    }
    // The rated power is drawn when it is within reach of the peak (a small job
    // on a big node would otherwise squeeze its whole distribution into a corner).
    if (opt.rated_w && *opt.rated_w > 0 && *opt.rated_w <= 2.5 * std::max(hi, 1.0)) {
        hi = std::max(hi, *opt.rated_w);
    }
    if (opt.threshold_w && *opt.threshold_w > 0 && *opt.threshold_w <= 2.5 * std::max(hi, 1.0)) {
        hi = std::max(hi, *opt.threshold_w);
    }
    if (lo < 0.25 * hi) {
        lo = std::min(lo, 0.0);
    }
    // Constant power: a few watts either side, so bins are not a fraction of a watt.
    if (hi - lo < 1.0) {
        const double mid = 0.5 * (lo + hi);
        lo = mid - 2.5;
        hi = mid + 2.5;
    }
    const Axis ax = nice_axis(lo, hi, 10);
    out.hist_lo = ax.lo;
    out.hist_hi = ax.hi;
    const auto bins = static_cast<std::size_t>(std::max(opt.bins, 1));
    out.histogram.assign(bins, 0.0);
    const double bw = (ax.hi - ax.lo) / static_cast<double>(bins);
    for (std::size_t i = 0; i < g.watts.size(); ++i) {
        if (!std::isfinite(g.watts[i])) {
            continue;
        }
        const double b = std::floor((g.watts[i] - ax.lo) / bw);
        const auto k = b <= 0 ? 0 : std::min(static_cast<std::size_t>(b), bins - 1);
        out.histogram[k] += g.seconds_of(i) / total;
    }
}

} // namespace

std::vector<Point>
decimate_grid(const GridSeries& g, std::int64_t t0, std::int64_t t1, int columns) {
    MinMaxDecimator d{0.0, 1.0, columns};
    const auto span = static_cast<double>(t1 - t0);
    if (span <= 0) {
        return {};
    }
    for (std::size_t i = 0; i < g.watts.size(); ++i) {
        const std::int64_t a = g.t0 + static_cast<std::int64_t>(i) * g.step_ns;
        const std::int64_t b = std::min(a + g.step_ns, g.t1);
        const double mid = static_cast<double>(a - t0) + static_cast<double>(b - a) / 2;
        d.add(mid / span, g.watts[i]);
    }
    return d.finish();
}

namespace {

bool drawn(const Channel& c) {
    return c.counted && c.quantity != Quantity::utilization;
}

Result<std::map<std::int64_t, RunSeries>> scan_runs(trace::Reader& reader,
                                                    std::span<const trace::RunInfo> runs) {
    auto db = trace::Database::open(reader.path(), trace::Database::Mode::read_only);
    if (!db) {
        return std::unexpected(db.error());
    }
    // Map the file rather than copy page by page; a hint SQLite may ignore.
    if (!db->exec("PRAGMA mmap_size = 1073741824")) {
        // Not mapped: read page by page, as without the hint.
    }
    std::string sql = "SELECT run_id, channel_id, t_ns, value, flags FROM sample NOT INDEXED WHERE "
                      "run_id IN (";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        sql += i == 0 ? "?" : ",?";
    }
    sql += ")";
    auto st = db->prepare(sql);
    if (!st) {
        return std::unexpected(st.error());
    }
    const auto& chans = reader.channels();
    std::map<std::int64_t, RunSeries> out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        st->bind(static_cast<int>(i) + 1, runs[i].id);
        out[runs[i].id].resize(chans.size());
    }
    std::int64_t current = -1;
    RunSeries* series = nullptr;
    for (;;) {
        auto row = st->step();
        if (!row) {
            return std::unexpected(row.error());
        }
        if (!*row) {
            break;
        }
        const std::int64_t run = st->column_int(0);
        const std::int64_t ch = st->column_int(1) - 1;
        if (ch < 0 || ch >= static_cast<std::int64_t>(chans.size()) ||
            !drawn(chans[static_cast<std::size_t>(ch)])) {
            continue;
        }
        if (run != current) {
            current = run;
            series = &out[run];
        }
        auto& cs = (*series)[static_cast<std::size_t>(ch)];
        cs.points.push_back({st->column_int(2), st->column_double(3)});
        cs.flags.push_back(static_cast<std::uint8_t>(st->column_int(4)));
    }
    // Rows come in insertion order, which is time order except for values
    // written late (an interpolated edge of a slow source): sort those.
    for (auto& [id, rs] : out) {
        for (auto& cs : rs) {
            trace::sort_by_time(cs);
        }
    }
    return out;
}

Result<RunProfile> profile_of(trace::Reader& reader,
                              const trace::RunInfo& run,
                              RunSeries series,
                              const ProfileOptions& opt) {
    RunProfile out;
    out.run = run;
    auto window = run_window(reader, run);
    if (!window) {
        return std::unexpected(window.error());
    }
    out.t0 = window->first;
    out.t1 = window->second;
    auto markers = reader.markers(run.id);
    if (!markers) {
        return std::unexpected(markers.error());
    }
    out.phases = phases_of(*markers, out.t0, out.t1);

    const auto& chans = reader.channels();
    std::optional<std::size_t> node_ch;
    for (std::size_t i = 0; i < chans.size(); ++i) {
        if (chans[i].counted && chans[i].quantity != Quantity::utilization &&
            chans[i].domain == Domain::node) {
            node_ch = i;
            break;
        }
    }
    // Without a node meter the node is the sum of the parts on their coarsest
    // resolution (as node_power_series), so their knots are kept for it.
    std::vector<std::vector<TimedValue>> kept;
    std::vector<ChannelData> parts;
    GridSeries node_grid;
    kept.reserve(chans.size()); // parts hold spans into it
    for (std::size_t i = 0; i < chans.size(); ++i) {
        const auto& c = chans[i];
        if (!drawn(c)) {
            continue;
        }
        const auto timing = timing_of(c, series.at(i).points, series.at(i).flags);
        auto knots = knots_of(c, std::move(series.at(i).points), series.at(i).flags);
        PlotSeries ps{c.name, i, c.provenance, {}};
        GridSeries g;
        if (timing.resolution_ns > 0) {
            g = channel_grid(c, knots, out.t0, out.t1, timing.resolution_ns);
            ps.points = decimate_grid(g, out.t0, out.t1, opt.columns);
        }
        if (node_ch && i == *node_ch) {
            ps.name = "node";
            out.node = std::move(ps);
            node_grid = std::move(g);
            continue;
        }
        out.parts.push_back(std::move(ps));
        if (!node_ch) {
            kept.push_back(std::move(knots));
            parts.push_back({&c, kept.back(), timing.resolution_ns});
        }
    }
    if (!node_ch && !out.parts.empty()) {
        const auto rest_w = node_facts(reader).rest_watts;
        node_grid = grid_of(parts, out.t0, out.t1, rest_w.value_or(0));
        auto prov = rest_w ? Provenance::estimated : Provenance::derived;
        for (const auto& p : out.parts) {
            prov = p.provenance == Provenance::estimated ? Provenance::estimated : prov;
        }
        PlotSeries ps{rest_w ? "node (sum of parts + rest model)" : "node (sum of parts)", 0, prov,
                      decimate_grid(node_grid, out.t0, out.t1, opt.columns)};
        out.node = std::move(ps);
        out.node_from_parts = true;
        out.node_lower_bound = !rest_w;
    }
    out.step_ns = node_grid.step_ns;
    out.windows = node_grid.watts.size();
    out.distribution = power_distribution(node_grid, opt.threshold_w);
    fill_histogram(out, node_grid, opt);
    return out;
}

} // namespace

Result<std::map<std::int64_t, RunSeries>> read_runs(trace::Reader& reader,
                                                    std::span<const trace::RunInfo> runs) {
    if (reader.version() == 1) {
        if (auto scanned = scan_runs(reader, runs)) {
            return scanned;
        }
    }
    std::map<std::int64_t, RunSeries> out;
    const auto& chans = reader.channels();
    const auto profiles = profile_index(chans);
    for (const auto& run : runs) {
        auto& rs = out[run.id];
        rs.resize(chans.size());
        for (std::size_t i = 0; i < chans.size(); ++i) {
            if (!drawn(chans[i])) {
                continue;
            }
            auto s = run_readings(reader, run.id, i, profiles);
            if (!s) {
                return std::unexpected(s.error());
            }
            rs[i] = std::move(*s);
        }
    }
    return out;
}

Result<std::vector<RunProfile>> load_profiles(trace::Reader& reader,
                                              std::span<const trace::RunInfo> runs,
                                              const ProfileOptions& options) {
    auto series = read_runs(reader, runs);
    if (!series) {
        return std::unexpected(series.error());
    }
    std::vector<RunProfile> out;
    for (const auto& run : runs) {
        auto it = series->find(run.id);
        if (it == series->end()) {
            return fail(ErrorKind::internal, reader.path().string(),
                        fmt::format("run {} asked for twice", run.id));
        }
        auto p = profile_of(reader, run, std::move(it->second), options);
        series->erase(it); // free each run's samples once drawn
        if (!p) {
            return std::unexpected(p.error());
        }
        out.push_back(std::move(*p));
    }
    return out;
}

Result<RunProfile>
load_profile(trace::Reader& reader, const trace::RunInfo& run, const ProfileOptions& options) {
    auto p = load_profiles(reader, {&run, 1}, options);
    if (!p) {
        return std::unexpected(p.error());
    }
    return std::move(p->front());
}

} // namespace jp::report::html

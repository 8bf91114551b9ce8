// SPDX-License-Identifier: BSD-3-Clause
// Two passes over the node traces: the first reads each trace's meta and run
// (its edges on the reference clock) to lay out the job's axis; the second
// summarises one node at a time and adds its power into the job's grid.
#include "report/job/detail.hpp"
#include "report/series.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace jp::report::job {

std::string meta_or(const trace::Reader& r, const std::string& key, const std::string& fallback) {
    const auto it = r.meta().find(key);
    return it == r.meta().end() ? fallback : it->second;
}

std::optional<std::int64_t> meta_int(const trace::Reader& r, const std::string& key) {
    const auto it = r.meta().find(key);
    if (it == r.meta().end()) {
        return std::nullopt;
    }
    std::int64_t v = 0;
    const auto& s = it->second;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

namespace {

// The run a node trace stands for: its last measured run.
const trace::RunInfo* node_run(const trace::Reader& r) {
    const trace::RunInfo* out = nullptr;
    for (const auto& run : r.runs()) {
        if (run.kind == "measure") {
            out = &run;
        }
    }
    return out;
}

NodeClock clock_of(const trace::Reader& r) {
    NodeClock c;
    const auto offset = meta_int(r, "clock.offset_ns");
    const auto error = meta_int(r, "clock.offset_error_ns");
    if (offset && error && *error >= 0) {
        c.offset_ns = *offset;
        c.error_ns = error;
        c.reference = meta_or(r, "clock.reference");
    }
    if (const auto s = meta_or(r, "clock.synchronized"); !s.empty()) {
        c.synchronized = s == "yes";
    }
    return c;
}

// What the first pass keeps of a node.
struct Header {
    std::filesystem::path path;
    std::string node;
    std::optional<std::int64_t> node_id;
    NodeClock clock;
    std::int64_t shift_ns = 0; // trace time + shift = reference wall time (ns)
    std::int64_t start_wall = 0;
    std::int64_t end_wall = 0;
    bool ended = true;
    std::int64_t interval_ns = 0;
    std::string gpus;
};

Result<Header> read_header(const std::filesystem::path& path, JobResult& job, bool first) {
    auto r = trace::Reader::open(path);
    if (!r) {
        return std::unexpected(r.error());
    }
    const auto* run = node_run(*r);
    if (run == nullptr) {
        return fail(ErrorKind::parse, path.string(), "holds no measured run");
    }
    const auto job_id = meta_or(*r, "slurm.job_id");
    auto step = meta_or(*r, "slurm.step"); // "<jobid>.<stepid>" as the plugin writes it
    if (!job_id.empty() && step.starts_with(job_id + ".")) {
        step.erase(0, job_id.size() + 1);
    }
    if (first) {
        job.job_id = job_id;
        job.step = step;
        job.label = run->label;
    } else if (job_id != job.job_id || step != job.step) {
        return fail(ErrorKind::config, path.string(),
                    fmt::format("is step {}.{}, not {}.{} as the traces before it: merge the "
                                "traces of one step at a time",
                                job_id, step, job.job_id, job.step));
    }
    const auto nnodes = meta_int(*r, "slurm.nnodes");
    if (nnodes && *nnodes > 0) {
        job.expected_nodes = std::max(job.expected_nodes, static_cast<std::size_t>(*nnodes));
    }
    Header h;
    h.path = path;
    h.node = meta_or(*r, "slurm.node", meta_or(*r, "host", path.stem().string()));
    h.node_id = meta_int(*r, "slurm.node_id");
    for (const char* var :
         {"SLURM_STEP_GPUS", "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "SLURM_JOB_GPUS"}) {
        if (h.gpus.empty()) {
            h.gpus = meta_or(*r, std::string{"slurm.env."} + var);
        }
    }
    h.clock = clock_of(*r);
    h.shift_ns = meta_int(*r, "epoch_wall_ns").value_or(0) - h.clock.offset_ns;
    h.interval_ns = meta_int(*r, "interval_ns").value_or(0);
    auto end = run->end_ns;
    if (!end) {
        auto last = r->last_sample_time(run->id);
        h.ended = false;
        end = last && *last ? **last : run->start_ns;
    }
    h.start_wall = run->start_ns + h.shift_ns;
    h.end_wall = std::max(*end, run->start_ns) + h.shift_ns;
    return h;
}

// Adds a node's grid (trace time) into bins of `step` from `origin` (reference
// wall time): joules per bin, by overlap. The grid drops a last window under
// half a step: its last window stands for the time up to `end` (the node's
// end on the job's axis), so the profile does not fall to zero before it.
void add_energy(const GridSeries& g,
                std::int64_t shift,
                std::int64_t origin,
                std::int64_t step,
                std::int64_t end,
                std::vector<double>& joules) {
    if (joules.empty()) {
        return;
    }
    for (std::size_t i = 0; i < g.watts.size(); ++i) {
        const std::int64_t a = g.t0 + static_cast<std::int64_t>(i) * g.step_ns + shift - origin;
        const std::int64_t b = i + 1 == g.watts.size()
                                   ? std::max(end, a + g.step_ns)
                                   : std::min(a + g.step_ns, g.t1 + shift - origin);
        if (b <= a || !std::isfinite(g.watts[i])) {
            continue;
        }
        const auto last = static_cast<std::int64_t>(joules.size()) - 1;
        for (std::int64_t k = std::clamp(a / step, std::int64_t{0}, last);
             k <= std::clamp((b - 1) / step, std::int64_t{0}, last); ++k) {
            const std::int64_t lo = std::max(a, k * step);
            const std::int64_t hi = std::min(b, (k + 1) * step);
            if (hi > lo) {
                joules[static_cast<std::size_t>(k)] +=
                    g.watts[i] * static_cast<double>(hi - lo) * 1e-9;
            }
        }
    }
}

// Mean power per bin of `step` over [0, span]: the last bin may be shorter.
std::vector<double> to_watts(std::vector<double> joules, std::int64_t step, std::int64_t span) {
    for (std::size_t k = 0; k < joules.size(); ++k) {
        const std::int64_t lo = static_cast<std::int64_t>(k) * step;
        const std::int64_t len = std::min(step, span - lo);
        joules[k] = len > 0 ? joules[k] / (static_cast<double>(len) * 1e-9) : 0;
    }
    return joules;
}

std::size_t bins_for(std::int64_t span, std::int64_t step) {
    return static_cast<std::size_t>(std::max<std::int64_t>(1, (span + step - 1) / step));
}

constexpr std::size_t k_max_grid_bins = 200'000;

// The job's axis on the reference clock: from the first node's start over
// `span`, a grid of `step` for the peak, `col_step` for the profiles.
struct Axis {
    std::int64_t origin = 0;
    std::int64_t span = 1;
    std::int64_t step = 0;
    std::int64_t col_step = 0;
};

Axis layout(const std::vector<Header>& headers, int profile_columns) {
    Axis a;
    a.origin = INT64_MAX;
    std::int64_t last_end = INT64_MIN;
    a.step = 1'000'000; // a finer grid than the nodes were read at says nothing
    for (const auto& h : headers) {
        a.origin = std::min(a.origin, h.start_wall);
        last_end = std::max(last_end, h.end_wall);
        a.step = std::max(a.step, h.interval_ns);
    }
    a.span = std::max<std::int64_t>(last_end - a.origin, 1);
    const auto max_bins = static_cast<std::int64_t>(k_max_grid_bins);
    a.step = std::max(a.step, (a.span + max_bins - 1) / max_bins);
    const int columns = std::max(profile_columns, 1);
    a.col_step = std::max<std::int64_t>(1, (a.span + columns - 1) / columns);
    return a;
}

// What the nodes add up to: joules per window of the peak grid and the profile.
struct Grids {
    explicit Grids(const Axis& a)
        : axis(a), grid(bins_for(a.span, a.step), 0.0), profile(bins_for(a.span, a.col_step), 0.0),
          coarsest(a.step) {}
    Axis axis;
    std::vector<double> grid;
    std::vector<double> profile;
    std::int64_t coarsest; // the coarsest node resolution seen
};

// The first pass: every trace's header, each trace once, sorted by node id.
Result<std::vector<Header>> read_headers(std::span<const std::filesystem::path> traces,
                                         JobResult& job) {
    std::vector<Header> headers;
    std::set<std::filesystem::path> seen;
    for (const auto& path : traces) {
        std::error_code ec;
        auto canonical = std::filesystem::weakly_canonical(path, ec);
        if (!seen.insert(ec ? path : canonical).second) {
            continue; // the same trace named twice counts once
        }
        auto h = read_header(path, job, headers.empty());
        if (!h && h.error().kind == ErrorKind::config) {
            return std::unexpected(h.error());
        }
        if (!h) {
            auto m = h.error().message(); // naming its file once
            job.unreadable.push_back(m.find(path.string()) == std::string::npos
                                         ? path.string() + ": " + m
                                         : std::move(m));
            continue;
        }
        headers.push_back(std::move(*h));
    }
    if (headers.empty()) {
        // An unreadable trace's message names its file already.
        return job.unreadable.empty()
                   ? fail(ErrorKind::not_found, traces.empty() ? "merge" : traces.front().string(),
                          "no node trace to merge")
                   : fail(ErrorKind::not_found, "", job.unreadable.front());
    }
    std::ranges::sort(headers, [](const Header& a, const Header& b) {
        return std::tie(a.node_id, a.node) < std::tie(b.node_id, b.node);
    });
    return headers;
}

// The second pass, one node: its figures, and its power added into the grids.
Result<NodeResult> read_node(const Header& h, Grids& g, const SummaryOptions& options) {
    auto r = trace::Reader::open(h.path);
    if (!r) {
        return std::unexpected(r.error());
    }
    const trace::RunInfo* run = node_run(*r);
    if (run == nullptr) {
        return fail(ErrorKind::parse, h.path.string(), "holds no measured run");
    }
    auto summary = summarize_run(*r, *run, options);
    if (!summary) {
        return std::unexpected(summary.error());
    }
    const auto& a = g.axis;
    NodeResult n;
    n.node = h.node;
    n.node_id = h.node_id;
    n.trace = h.path;
    n.clock = h.clock;
    n.ended = h.ended;
    n.gpus = h.gpus;
    n.start_ns = h.start_wall - a.origin;
    n.end_ns = h.end_wall - a.origin;
    n.run = std::move(*summary);
    attribute_gpus(n);
    if (auto series = node_power_series(*r, *run); series && !series->watts.empty()) {
        g.coarsest = std::max(g.coarsest, series->step_ns);
        const std::int64_t end = h.end_wall - a.origin;
        add_energy(*series, h.shift_ns, a.origin, a.step, end, g.grid);
        std::vector<double> mine(g.profile.size(), 0.0);
        add_energy(*series, h.shift_ns, a.origin, a.col_step, end, mine);
        n.profile = to_watts(std::move(mine), a.col_step, a.span);
        for (std::size_t k = 0; k < g.profile.size(); ++k) {
            g.profile[k] += n.profile[k];
        }
    }
    return n;
}

} // namespace

Result<JobResult> merge_nodes(std::span<const std::filesystem::path> traces,
                              const MergeOptions& options) {
    JobResult job;
    auto headers = read_headers(traces, job);
    if (!headers) {
        return std::unexpected(headers.error());
    }
    Grids g(layout(*headers, options.profile_columns));
    for (const auto& h : *headers) {
        if (auto n = read_node(h, g, options.summary)) {
            job.nodes.push_back(std::move(*n));
        } else {
            job.unreadable.push_back(n.error().message());
        }
    }
    if (job.nodes.empty()) {
        return fail(ErrorKind::parse, traces.front().string(), job.unreadable.front());
    }
    const auto& a = g.axis;
    job.wall_start_ns = a.origin;
    job.runtime_s = static_cast<double>(a.span) * 1e-9;
    job.power = std::move(g.profile);
    job.profile_step_ns = a.col_step;
    set_peak(job, to_watts(std::move(g.grid), a.step, a.span), a.step, g.coarsest, a.span);
    finish_job(job);
    return job;
}

void set_peak(JobResult& job,
              const std::vector<double>& watts,
              std::int64_t step,
              std::int64_t coarsest,
              std::int64_t span) {
    // A node known only at a coarser resolution makes the sum no finer.
    const auto k =
        static_cast<std::size_t>(std::max<std::int64_t>(1, (coarsest + step - 1) / step));
    job.step_ns = static_cast<std::int64_t>(k) * step;
    for (std::size_t i = 0; i < watts.size(); i += k) {
        double joules = 0;
        std::int64_t len = 0;
        for (std::size_t j = i; j < std::min(watts.size(), i + k); ++j) {
            const std::int64_t lo = static_cast<std::int64_t>(j) * step;
            const std::int64_t l = std::min(step, span - lo);
            joules += watts[j] * static_cast<double>(l);
            len += l;
        }
        // A last window under half the resolution would overstate a short burst.
        if (len <= 0 || (i > 0 && len * 2 < job.step_ns)) {
            continue;
        }
        const double w = joules / static_cast<double>(len);
        if (!job.peak_w || w > *job.peak_w) {
            job.peak_w = w;
            job.peak_at_ns = static_cast<std::int64_t>(i) * step;
        }
    }
}

} // namespace jp::report::job

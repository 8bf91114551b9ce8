// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the HTML report draws for one run, read from the trace once per
// channel: each counted part's and the node's power, decimated to the pixel
// width while streaming, the node's power distribution and histogram, and the
// phases with the node energy spent in each.
#include "report/distribution.hpp"
#include "report/html/svg.hpp"
#include "report/phases.hpp"
#include "report/series.hpp"
#include "trace/reader.hpp"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace jp::report::html {

// A grid decimated to `columns` pixel columns over the fraction of the run
// [t0, t1] (x = window midpoint as a fraction of the run, y = W).
[[nodiscard]] std::vector<Point>
decimate_grid(const GridSeries& g, std::int64_t t0, std::int64_t t1, int columns);

struct PlotSeries {
    std::string name;
    std::size_t channel = 0; // index into reader.channels()
    Provenance provenance = Provenance::measured;
    std::vector<Point> points;
};

struct RunProfile {
    trace::RunInfo run;
    std::int64_t t0 = 0;
    std::int64_t t1 = 0;
    std::int64_t step_ns = 0; // of the node's series
    std::optional<PlotSeries> node;
    // No node meter: the node is the sum of the parts, plus the rest-of-node
    // model (estimated) or not (a lower bound).
    bool node_from_parts = false;
    bool node_lower_bound = false;
    std::vector<PlotSeries> parts;
    Distribution distribution;
    std::size_t windows = 0; // of the node's series
    double hist_lo = 0;
    double hist_hi = 0;
    std::vector<double> histogram; // share of time per bin on [hist_lo, hist_hi]
    Phases phases;
};

struct ProfileOptions {
    int columns = 900;
    std::optional<double> threshold_w;
    std::optional<double> rated_w; // widens the histogram's range to show it when close
    int bins = 60;
};

// Samples of one run per channel (index into reader.channels()), by time, with
// their flags; empty for channels the report does not draw.
using RunSeries = std::vector<trace::ChannelSamples>;

// The counted channels of several runs. A version 1 trace (a row per sample)
// is read in one sequential pass over its sample table, much faster there than
// one indexed query per channel; a version 2 trace's blocks are read per
// channel (Reader::samples), which touches only that channel's blocks.
[[nodiscard]] Result<std::map<std::int64_t, RunSeries>>
read_runs(trace::Reader& reader, std::span<const trace::RunInfo> runs);

// The profiles of several runs (one pass over the samples for all of them).
[[nodiscard]] Result<std::vector<RunProfile>> load_profiles(trace::Reader& reader,
                                                            std::span<const trace::RunInfo> runs,
                                                            const ProfileOptions& options);

[[nodiscard]] Result<RunProfile>
load_profile(trace::Reader& reader, const trace::RunInfo& run, const ProfileOptions& options);

} // namespace jp::report::html

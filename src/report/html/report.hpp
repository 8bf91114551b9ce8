// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The self-contained HTML report: job profile (power over the run's time
// per part, phases shaded), stacked energy per part, power distribution against
// the rated power, and the tables. No network, no external assets.
#include "config/config.hpp"
#include "core/error.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jp::report {

struct HtmlOptions {
    int plot_width_px = 900;           // series are decimated to this many columns
    std::optional<double> threshold_w; // time-above-threshold line, if given
    bool force = false;                // an existing output may be replaced
    CarbonConfig carbon;               // the footprint's factors, as the text's (none: none)
    // Whether a trace's label is shown (every one when empty): the command line's TRACE:LABEL.
    std::function<bool(const std::filesystem::path& trace, const std::string& label)> shown;
};

// Reads the traces and writes one HTML file (never over a trace, an existing
// file only with force; sys/output.hpp). Errors name the trace or output path.
Result<void> write_html_report(const std::vector<std::filesystem::path>& traces,
                               const std::filesystem::path& out,
                               const HtmlOptions& options);

} // namespace jp::report

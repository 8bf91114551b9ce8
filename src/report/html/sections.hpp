// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the HTML report's sections share: the page being written, one colour
// per part, number formats, and the sections themselves (tables in
// tables.cpp, figures in figures.cpp, the trace's frame in report.cpp).
#include "report/html/data.hpp"
#include "report/html/report.hpp"
#include "report/summary.hpp"
#include "report/units.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::report::html {

// One colour per part name across a trace's figures.
class Colors {
public:
    std::string of(const std::string& name);

private:
    std::map<std::string, std::string> m_map;
};

class Page {
public:
    explicit Page(const HtmlOptions& o) : opt(o) {}
    const HtmlOptions& opt;
    std::string body;
    int figure = 0;
    int trace_no = 0;
    int svg_no = 0;
    std::string next_id(std::string_view kind);
};

[[nodiscard]] int plot_width(const HtmlOptions& o);
// "12.345 ± 0.067" over repeats, the mean alone for one run.
[[nodiscard]] std::string mean_pm(const Stat& s, double scale, int digits);
[[nodiscard]] std::string badge(Provenance p);
[[nodiscard]] std::string swatch(const std::string& color, bool hatched = false);
[[nodiscard]] std::string seconds_text(double s);
[[nodiscard]] std::string step_text(std::int64_t ns);

// --- tables (tables.cpp) ---
// The study's table: one row per label.
void overview_table(Page& pg,
                    const std::vector<RepeatSummary>& groups,
                    const std::optional<Rating>& rated);
// Each part of one label's runs, with the node, the rest and the notes.
void part_table(Page& pg, const RepeatSummary& g, Colors& colors);
// The phases one run's job marked, with their share of the node's energy.
void phase_table(Page& pg, const RunProfile& p, const RunSummary& run);

// --- figures (figures.cpp) ---
// Every measured run's energy, stacked by part.
void energy_figure(Page& pg, const std::vector<RepeatSummary>& groups, Colors& colors);
// One run's power over the run's time, with its phases and the sensors' bound on the
// node's power (summary's power_band).
void profile_figure(Page& pg,
                    const RunProfile& p,
                    const RunSummary& summary,
                    const std::string& label,
                    int fig_no,
                    Colors& colors);
// One run's distribution of node power against its rating, with where the sensors' bounds put
// its peak (the summary's, where it is at the figure's resolution).
void distribution_figure(Page& pg,
                         const RunProfile& p,
                         const RunSummary& summary,
                         const std::optional<Rating>& rated,
                         int fig_no);

} // namespace jp::report::html

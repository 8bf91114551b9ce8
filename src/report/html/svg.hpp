// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Server-side SVG for the HTML report: escaping, min/max decimation of long
// series to the pixel width, and the figures (power over the run's time
// with phases, stacked energy bars, power distribution). Every string that
// reaches the output goes through escape(); no figure references anything
// outside itself except the page's stylesheet.
#include "report/basis.hpp"

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jp::report::html {

// Escapes & < > " ' so the text is safe in HTML text, attribute values and
// inline SVG. Bytes that are not valid UTF-8 and control characters other than
// tab and newline become U+FFFD, so the page always parses.
[[nodiscard]] std::string escape(std::string_view s);

struct Point {
    double x = 0;
    double y = 0;
};

// Min/max decimation while streaming: points arrive in increasing x; [x0, x1]
// maps onto `columns` pixel columns, and each column keeps its lowest and its
// highest point in their original order. A one-sample spike survives; the
// output holds at most 2 points per column. Non-finite points are dropped, x
// outside [x0, x1] falls into the first or last column, and a point whose
// column lies before the current one joins the current one.
class MinMaxDecimator {
public:
    MinMaxDecimator(double x0, double x1, int columns);
    void add(double x, double y);
    // The decimated points; the decimator is empty afterwards.
    [[nodiscard]] std::vector<Point> finish();
    [[nodiscard]] int columns() const noexcept { return m_columns; }

private:
    void flush();
    double m_x0;
    double m_scale;
    int m_columns;
    long m_column = -1;
    Point m_min;
    Point m_max;
    bool m_min_first = true;
    std::vector<Point> m_out;
};

[[nodiscard]] std::vector<Point>
decimate_min_max(std::span<const Point> points, double x0, double x1, int columns);

// "Nice" axis: ticks at multiples of 1, 2, 2.5 or 5 × 10^k covering [lo, hi].
struct Axis {
    double lo = 0;
    double hi = 1;
    double step = 0.2;
    [[nodiscard]] std::vector<double> ticks() const;
    [[nodiscard]] std::string label(double v) const; // with the step's decimals
};
[[nodiscard]] Axis nice_axis(double lo, double hi, int target_ticks);

// Colour of the i-th part (stable across figures of one page).
[[nodiscard]] std::string part_color(std::size_t i);
inline constexpr std::string_view k_node_color = "#222222";
inline constexpr std::string_view k_rest_color = "#a9a9a9";

// --- power over the run's time ---
struct SeriesLine {
    std::string name;
    std::string color;
    std::vector<Point> points; // x: fraction of runtime, y: W
    bool dashed = false;       // estimated
    bool thick = false;        // the node
    std::string note;          // shown after the name in the legend, e.g. "estimated"
};

struct PhaseBand {
    std::string name;
    double x0 = 0;
    double x1 = 0;
    std::string color;
    std::string title; // tooltip
};

struct PointMark {
    std::string name;
    double x = 0;
};

// Where the sensors' bounds put the node's mean power over one window (W).
struct BandSpan {
    double x = 0; // the window's middle, as a fraction of runtime
    double lo = 0;
    double hi = 0;
};

struct ProfileFigure {
    std::string id;             // unique in the page; only [a-z0-9-]
    std::vector<BandSpan> band; // shaded under the lines; empty: none
    int plot_width = 900;
    int plot_height = 300;
    double runtime_s = 0;
    std::vector<SeriesLine> lines;
    std::vector<PhaseBand> phases;
    std::vector<PointMark> points;
};
[[nodiscard]] std::string profile_svg(const ProfileFigure& f);

// --- stacked energy bars ---
struct BarSegment {
    std::string name;
    double value = 0; // kJ; segments <= 0 are not drawn
    std::string color;
    bool hatched = false; // estimated
    std::string title;
};

struct Bar {
    std::string group; // bars of one group stand together, the group named below
    std::string label; // under the bar
    std::vector<BarSegment> segments;
    double total = 0;  // printed above the bar
    Basis total_basis; // marks by the total: ≥ a lower bound, * estimated
    // The sensors' bound on the total, drawn as an error bar (both NaN: none).
    double total_low = std::numeric_limits<double>::quiet_NaN();
    double total_high = std::numeric_limits<double>::quiet_NaN();
    std::string bound_title;
};

struct LegendEntry {
    std::string name;
    std::string color;
    bool hatched = false;
    bool dashed = false;
    bool line = false; // a line rather than a swatch
};

struct BarsFigure {
    std::string id;
    int width = 980;
    int plot_height = 260;
    std::string y_title = "Energy [kJ]";
    std::vector<Bar> bars;
    std::vector<LegendEntry> legend;
};
[[nodiscard]] std::string stacked_bars_svg(const BarsFigure& f);

// Decimals that show a figure with about three significant digits (0.145, 1.23, 12.3, 123).
[[nodiscard]] int significant_decimals(double v);

// The text, cut to `width` px (estimated) with a trailing ellipsis when it does not fit.
[[nodiscard]] std::string fit_text(const std::string& s, double font_px, double width);

// --- power distribution ---
struct VLine {
    std::string name;
    double x = 0;
    std::string color;
    bool dashed = false;
    double width = 1.5;
};

struct HistogramFigure {
    std::string id;
    int plot_width = 900;
    int plot_height = 220;
    double lo = 0;             // W, first bin's lower edge
    double hi = 1;             // W, last bin's upper edge
    std::vector<double> share; // share of the run's time per bin, 0..1
    std::vector<VLine> lines;
};
[[nodiscard]] std::string histogram_svg(const HistogramFigure& f);

} // namespace jp::report::html
